// Command notesoup is the one binary users install: the CLI, the helper
// protocol, the MCP server and (started by the host in plugin mode) the
// built-in harness plugins.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand of the notesoup binary. Each subcommand lives in
// its own file and registers itself from init, so adding one touches no
// shared table.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("notesoup: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "notesoup: unknown command %q; run 'notesoup help' for the list\n", args[0])
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "notesoup: notes, clean resets and cross-harness history for coding agents")
	fmt.Fprintln(w, "\nUsage: notesoup <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}
