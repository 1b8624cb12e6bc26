package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/notesoup/notesoup/shared/termsafe"
	"github.com/spf13/pflag"
)

// Exit statuses, the same for every command, as grep and ripgrep use them.
const (
	// exitOK: done; for a search, something was found.
	exitOK = 0
	// exitNone: a search (search, history list --query, history sessions
	// --query) ran and found nothing.
	exitNone = 1
	// exitError: a usage error or any other failure.
	exitError = 2
)

// Error codes of the JSON error object ({"error":{"code":…,"message":…}}).
const (
	codeUsage = "usage" // the command line is wrong: a flag, an argument
	codeError = "error" // the command could not do what was asked
)

// invocation is one run of one (sub)command: where it writes, how it
// reports errors, and whether the caller asked for JSON.
type invocation struct {
	cmd    *command
	stdout io.Writer
	stderr io.Writer
	// json: the caller asked for --json, so errors are a JSON object on
	// stdout (a script reads one stream) instead of a line on stderr.
	json bool
}

// newInvocation starts a run of cmd with the raw arguments, which it scans
// for --json so that even a flag that does not parse is answered in JSON.
func newInvocation(cmd *command, args []string, stdout, stderr io.Writer) *invocation {
	inv := &invocation{cmd: cmd, stdout: stdout, stderr: stderr}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "-json" || a == "--json=true" {
			inv.json = true
		}
	}
	return inv
}

// prog is the command's name as typed, e.g. "notesoup history list".
func (inv *invocation) prog() string { return "notesoup " + inv.cmd.path() }

// report prints one error the way the caller asked for and returns the
// exit status: under --json a JSON object on stdout, else "notesoup CMD:
// message" on stderr. Messages from shared layers speak the CLI's flags
// (cliWords) and are made inert for a terminal.
func (inv *invocation) report(code, msg string) int {
	msg = cliWords(msg)
	if inv.json {
		var e errorJSON
		e.Error.Code, e.Error.Message = code, msg
		if err := writeJSON(inv.stdout, e); err == nil {
			return exitError
		}
	}
	fmt.Fprintf(inv.stderr, "%s: %s\n", inv.prog(), termsafe.Sanitize(msg))
	return exitError
}

// usageErr reports a wrong command line, pointing at the help.
func (inv *invocation) usageErr(format string, a ...any) int {
	return inv.report(codeUsage, fmt.Sprintf(format, a...)+fmt.Sprintf(" (see %s --help)", inv.prog()))
}

// fail reports a failure of the command itself.
func (inv *invocation) fail(err error) int { return inv.report(codeError, err.Error()) }

// failf reports a failure of the command itself.
func (inv *invocation) failf(format string, a ...any) int {
	return inv.report(codeError, fmt.Sprintf(format, a...))
}

// warn prints a problem that does not stop the answer, on stderr whatever
// the output format (stdout stays one JSON document).
func (inv *invocation) warn(msg string) {
	fmt.Fprintf(inv.stderr, "%s: %s\n", inv.prog(), termsafe.Sanitize(cliWords(msg)))
}

// newFlags returns the flag set of one command: GNU style (--name VALUE or
// --name=VALUE, flags before, between or after the arguments, -- ends
// them), silent, since the invocation reports errors itself.
func newFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SetInterspersed(true)
	return fs
}

// parse parses args with fs. On -h or --help it prints the command's help
// on stdout; on a bad flag it reports a usage error; in both cases ok is
// false and code is the exit status. A given --home takes effect here
// (applyHome), so every command means the same by it.
func (inv *invocation) parse(fs *pflag.FlagSet, args []string) (pos []string, code int, ok bool) {
	err := fs.Parse(goStyleFlags(fs, args))
	if errors.Is(err, pflag.ErrHelp) {
		inv.cmd.help(inv.stdout)
		return nil, exitOK, false
	}
	if err != nil {
		return nil, inv.usageErr("%s", flagError(fs, err)), false
	}
	if f := fs.Lookup("json"); f != nil {
		inv.json = f.Value.String() == "true"
	}
	if f := fs.Lookup("home"); f != nil && f.Changed {
		if err := applyHome(f.Value.String()); err != nil {
			return nil, inv.usageErr("--home %s: %v", f.Value.String(), err), false
		}
	}
	return fs.Args(), exitOK, true
}

// goStyleFlags rewrites -name to --name when name is a long flag of fs, so
// command lines written for Go's flag package (-json, -limit 5) keep
// working. A value of a flag is left alone (--new -json stays).
func goStyleFlags(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	takesValue := false
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if takesValue {
			takesValue = false
			out = append(out, a)
			continue
		}
		name := a
		switch {
		case strings.HasPrefix(a, "--"):
			name = a[2:]
		case len(a) > 2 && a[0] == '-':
			name = a[1:]
			if f := fs.Lookup(strings.SplitN(name, "=", 2)[0]); f != nil {
				a = "-" + a
			}
		default:
			out = append(out, a)
			continue
		}
		if f := fs.Lookup(name); f != nil && f.NoOptDefVal == "" {
			takesValue = true // --limit 5: 5 is its value, not a flag
		}
		out = append(out, a)
	}
	return out
}

// flagError words pflag's parse errors as the rest of the CLI speaks.
func flagError(fs *pflag.FlagSet, err error) string {
	msg := err.Error()
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
		return "unknown flag " + rest + "; long flags take two dashes, e.g. --json"
	}
	if rest, ok := strings.CutPrefix(msg, "unknown flag: "); ok {
		name, _, _ := strings.Cut(strings.TrimPrefix(rest, "--"), "=")
		if s := didYouMean(name, names); s != "" {
			return "unknown flag " + rest + strings.Replace(s, `"`, `"--`, 1)
		}
		return "unknown flag " + rest
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return rest + " needs a value"
	}
	return msg
}

// homeFlag defines --home, which means one thing in every command: the
// notesoup home, where notes and external plugins live
// ($NOTESOUP_HOME, default ~/.notesoup).
func homeFlag(fs *pflag.FlagSet) {
	fs.String("home", "", "the notesoup home `DIR`, where notes and plugins live (default $NOTESOUP_HOME, else ~/.notesoup)")
}

// homeEnv is the variable every layer reads the notesoup home from
// (shared/notes.HomeEnv, host/plugindir).
const homeEnv = "NOTESOUP_HOME"

// applyHome makes dir the notesoup home of this process and of the plugins
// it starts: absolute, so a plugin started elsewhere finds the same one.
func applyHome(dir string) error {
	if dir == "" {
		return errors.New("give a directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return os.Setenv(homeEnv, abs)
}

// homeFromArgs finds --home DIR (or --home=DIR) in a command line before
// any command runs: main applies it before deciding, from the plugins
// under the home, which build answers (internal/oneshot).
func homeFromArgs(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return ""
		case a == "--home" || a == "-home":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "--home="):
			return a[len("--home="):]
		case strings.HasPrefix(a, "-home="):
			return a[len("-home="):]
		}
	}
	return ""
}

// logLevels are the values NOTESOUP_LOG takes (hclog's levels).
var logLevels = []string{"trace", "debug", "info", "warn", "error", "off"}

// checkLogEnv rejects a NOTESOUP_LOG the logger would not understand,
// instead of silently logging at the default level.
func checkLogEnv() error {
	v, ok := os.LookupEnv("NOTESOUP_LOG")
	if !ok || v == "" || slices.Contains(logLevels, strings.ToLower(strings.TrimSpace(v))) {
		return nil
	}
	return fmt.Errorf("NOTESOUP_LOG=%q is not a log level; use one of %s (or unset it for warn)", v, strings.Join(logLevels, ", "))
}

// writeTable prints rows as aligned columns under a header (text/tabwriter),
// two spaces apart. Cells are made inert for a terminal and kept on one line.
func writeTable(w io.Writer, header []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(cells []string) {
		for i, c := range cells {
			c = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(termsafe.Sanitize(c))
			if i > 0 {
				io.WriteString(tw, "\t")
			}
			io.WriteString(tw, c)
		}
		io.WriteString(tw, "\n")
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
	tw.Flush()
}

// jsonOut prints v as the command's JSON answer.
func (inv *invocation) jsonOut(v any) int {
	if err := writeJSON(inv.stdout, v); err != nil {
		return inv.fail(err)
	}
	return exitOK
}

// errorJSON is the error object printed under --json.
type errorJSON struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}
