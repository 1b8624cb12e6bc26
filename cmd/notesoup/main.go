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
//
// Every command is an entry of one table (commands): the help, the
// did-you-mean of a mistyped command and the shell completion scripts are
// all generated from it, so they cannot drift from what the commands
// accept.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/notesoup/notesoup/internal/oneshot"
	"github.com/spf13/pflag"
)

// command is one (sub)command of the notesoup binary. Each command lives in
// its own file and registers itself from init, so adding one touches no
// shared table.
type command struct {
	name    string
	summary string
	// usage is the synopsis after "notesoup ", e.g. "search QUERY [flags]";
	// empty means "<path> [flags]".
	usage string
	// about is the text after the flags in the help: what the command
	// does in detail, examples.
	about string
	// hidden commands (run by harnesses and the plugin host, not by
	// people) stay out of the help and the completion.
	hidden bool
	// flags defines the command's flags on fs. The command's run defines
	// them through the same function, so the help and the completion show
	// exactly what it parses. Nil for a command that parses its own.
	flags func(fs *pflag.FlagSet)
	// args are the words the first argument may be, for the completion
	// (e.g. completion's shells).
	args []string
	// subs are the subcommands (history list, notes read). A command with
	// subs runs its own run only for a first argument that names none of
	// them (install: an external plugin's installer); most have none.
	subs   []*command
	parent *command
	run    func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

// internalCommands are run by harnesses and the plugin host, never typed:
// they stay out of the help, the completion and the did-you-mean.
var internalCommands = map[string]bool{"helper": true, "hook": true, pluginModeArg: true}

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

// register adds a command that parses its own arguments.
func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	registerCommand(&command{name: name, summary: summary, run: run})
}

// registerCommand adds a command of the table.
func registerCommand(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("notesoup: command registered twice: " + c.name)
	}
	if internalCommands[c.name] {
		c.hidden = true
	}
	for _, s := range c.subs {
		s.parent = c
	}
	commands[c.name] = c
}

// path is the command as typed after "notesoup", e.g. "history list".
func (c *command) path() string {
	if c.parent == nil {
		return c.name
	}
	return c.parent.path() + " " + c.name
}

// sub returns the subcommand named name.
func (c *command) sub(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

// flagSet returns the command's flags as its run defines them, for the help
// and the completion; nil when the command parses its own.
func (c *command) flagSet() *pflag.FlagSet {
	if c.flags == nil {
		return nil
	}
	fs := newFlags(c.path())
	c.flags(fs)
	return fs
}

func main() {
	// --home names the home whose plugins decide which build answers, so
	// it takes effect before that decision.
	if home := homeFromArgs(os.Args[1:]); home != "" {
		if err := applyHome(home); err != nil {
			fmt.Fprintf(os.Stderr, "notesoup: --home %s: %v\n", home, err)
			os.Exit(exitError)
		}
	}
	// Before any command reads stdin: a build without the plugin host
	// hands the whole command over here when an external plugin exists.
	if err := policy.Start(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "notesoup:", err)
		os.Exit(exitError)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command line and returns its exit status. The environment a
// command changes (--home) is restored after it, so in-process callers
// (tests) see no change.
func run(args []string, stdout, stderr io.Writer) int {
	if old, had := os.LookupEnv(homeEnv); had {
		defer os.Setenv(homeEnv, old)
	} else {
		defer os.Unsetenv(homeEnv)
	}
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	switch args[0] {
	case "-h", "--help":
		usage(stdout)
		return exitOK
	case "help":
		return runHelp(args[1:], stdout, stderr)
	case "-V", "--version":
		return runVersion(nil, stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		if strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(stderr, "notesoup: unknown flag %s; flags come after the command (see notesoup --help)\n", args[0])
			return exitError
		}
		fmt.Fprintf(stderr, "notesoup: unknown command %q%s; run 'notesoup help' for the list\n", args[0], didYouMean(args[0], visibleNames(nil)))
		return exitError
	}
	// Harnesses and the plugin host run the internal commands: a bad
	// NOTESOUP_LOG must not break a harness's turn, so only what people
	// type refuses it.
	if !cmd.hidden {
		if err := checkLogEnv(); err != nil {
			fmt.Fprintf(stderr, "notesoup %s: %v\n", cmd.name, err)
			return exitError
		}
	}
	return cmd.dispatch(args[1:], stdout, stderr)
}

// dispatch runs c, or the subcommand args name.
func (c *command) dispatch(args []string, stdout, stderr io.Writer) int {
	if len(c.subs) == 0 {
		if c.flags == nil && len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			c.help(stdout) // a command that parses its own: its summary
			return exitOK
		}
		return c.run(args, stdout, stderr)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		c.help(stdout)
		return exitOK
	}
	s := c.sub(args[0])
	if s == nil && c.run != nil {
		return c.run(args, stdout, stderr)
	}
	if s == nil {
		names := make([]string, 0, len(c.subs))
		for _, s := range c.subs {
			names = append(names, s.name)
		}
		fmt.Fprintf(stderr, "notesoup %s: unknown subcommand %q%s; use one of %s (see notesoup %s --help)\n",
			c.path(), args[0], didYouMean(args[0], names), strings.Join(names, ", "), c.path())
		return exitError
	}
	return s.dispatch(args[1:], stdout, stderr)
}

// visibleNames are the names of the commands people type, sorted: the
// top-level ones (parent nil) or parent's subcommands.
func visibleNames(parent *command) []string {
	var names []string
	if parent != nil {
		for _, s := range parent.subs {
			names = append(names, s.name)
		}
		return names
	}
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// usage prints the top-level help.
func usage(w io.Writer) {
	fmt.Fprint(w, "notesoup: notes, clean resets and cross-harness history for coding agents\n\n")
	fmt.Fprint(w, "Usage:\n  notesoup COMMAND [flags]\n\nCommands:\n")
	rows := make([][]string, 0, len(commands))
	for _, n := range visibleNames(nil) {
		rows = append(rows, []string{"  " + n, commands[n].summary})
	}
	writeColumns(w, rows)
	fmt.Fprint(w, `
Flags:
  -h, --help      show this help
  -V, --version   print the version

Run 'notesoup help COMMAND' (or 'notesoup COMMAND --help') for a command's
flags, and 'notesoup completion bash|zsh|fish' for shell completion.

Exit status: 0 done (a search found something), 1 a search found nothing,
2 a usage error or another failure. Under --json an error is a JSON object
on stdout, {"error":{"code":"usage"|"error","message":…}}; otherwise a line
on stderr. Logs go to stderr (NOTESOUP_LOG=trace|debug|info|warn|error|off).
`)
}

// writeColumns prints rows of two cells, the first padded to a column.
func writeColumns(w io.Writer, rows [][]string) {
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %s\n", width, r[0], r[1])
	}
}

// help prints c's help: what it does, how it is typed, its subcommands or
// flags as they are typed (--limit N), and the details.
func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "notesoup %s: %s\n\nUsage:\n", c.path(), c.summary)
	switch {
	case c.usage != "":
		for _, l := range strings.Split(c.usage, "\n") {
			fmt.Fprintf(w, "  notesoup %s\n", l)
		}
	case len(c.subs) > 0:
		fmt.Fprintf(w, "  notesoup %s COMMAND [flags]\n", c.path())
	default:
		fmt.Fprintf(w, "  notesoup %s [flags]\n", c.path())
	}
	if len(c.subs) > 0 {
		fmt.Fprint(w, "\nCommands:\n")
		rows := make([][]string, 0, len(c.subs))
		for _, s := range c.subs {
			rows = append(rows, []string{"  " + s.name, s.summary})
		}
		writeColumns(w, rows)
	}
	if fs := c.flagSet(); fs != nil {
		fs.BoolP("help", "h", false, "show this help")
		fmt.Fprint(w, "\nFlags:\n")
		writeFlagUsages(w, fs)
	}
	if c.about != "" {
		fmt.Fprint(w, "\n", strings.TrimLeft(c.about, "\n"))
	}
	if len(c.subs) > 0 {
		fmt.Fprintf(w, "\nRun 'notesoup %s COMMAND --help' for a command's flags.\n", c.path())
	}
}

// writeFlagUsages prints fs's flags as they are typed, one per line:
// "-h, --help", "--limit N" (the placeholder is the back-quoted word of the
// usage), then the usage and a default that is not the zero value, wrapped
// to 80 columns under its column.
func writeFlagUsages(w io.Writer, fs *pflag.FlagSet) {
	type row struct{ left, right string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, usage := pflag.UnquoteUsage(f)
		if f.NoOptDefVal == "" && name != "" {
			left += " " + name
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "[]" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	const columns = 80
	for _, r := range rows {
		indent := strings.Repeat(" ", width+3)
		line := fmt.Sprintf("%-*s   ", width, r.left)
		n := len(line)
		for i, word := range strings.Fields(r.right) {
			if i > 0 && n+1+len(word) > columns {
				fmt.Fprintln(w, line)
				line, n = indent+word, len(indent)+len(word)
				continue
			}
			if i > 0 {
				line += " "
				n++
			}
			line += word
			n += len(word)
		}
		fmt.Fprintln(w, line)
	}
}

// runHelp is `notesoup help [COMMAND [SUBCOMMAND]]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok || c.hidden {
		fmt.Fprintf(stderr, "notesoup help: unknown command %q%s; run 'notesoup help' for the list\n", args[0], didYouMean(args[0], visibleNames(nil)))
		return exitError
	}
	for _, a := range args[1:] {
		s := c.sub(a)
		if s == nil {
			fmt.Fprintf(stderr, "notesoup help: %s has no subcommand %q%s\n", c.path(), a, didYouMean(a, visibleNames(c)))
			return exitError
		}
		c = s
	}
	c.help(stdout)
	return exitOK
}

// didYouMean returns ` (did you mean "X"?)` when one of names is within two
// edits (insertions, deletions, substitutions or swaps of adjacent letters)
// of typed, the closest first; "" when none is.
func didYouMean(typed string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(strings.ToLower(typed), n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the optimal string alignment distance (Damerau–
// Levenshtein without repeated edits of a substring) between a and b, in
// runes.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
