// Command notesoup is the binary users run: the CLI, the helper protocol,
// the MCP server and (started by the host in plugin mode) the built-in
// harness plugins.
//
// It builds two ways. Plain (`go install`) it is everything. With the
// "light" tag (`make build` installs that as bin/notesoup, beside the plain
// build, which only it runs) it leaves out the plugin host, gRPC and the MCP
// SDK, whose initialisation would cost 20–30 ms of every command, and hands
// the commands that need them to the plain build (light.go,
// internal/oneshot).
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/notesoup/notesoup/internal/oneshot"
)

// command is one subcommand of the notesoup binary. Each subcommand lives in
// its own file and registers itself from init, so adding one touches no
// shared table.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// policy is how one-shot commands reach the harnesses (internal/oneshot);
// the full build gives it the plugin host (harnesses.go).
var policy oneshot.Policy

// Summaries of the commands that exist in both builds but run only in the
// full one.
const (
	mcpSummary        = "serve the notes and history tools over MCP on stdio"
	pluginsSummary    = "list harness plugins: name, source, versions, capabilities, status"
	pluginModeSummary = "(internal) serve a built-in harness plugin to the host"
	// pluginModeArg is host.PluginModeArg, which the light build cannot
	// import; a test keeps them equal.
	pluginModeArg = "__harness-plugin"
)

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("notesoup: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func main() {
	// Before any command reads stdin: a build without the plugin host
	// hands the whole command over here when an external plugin exists.
	if err := policy.Start(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "notesoup:", err)
		os.Exit(1)
	}
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
