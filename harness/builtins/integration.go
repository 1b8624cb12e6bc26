package builtins

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/reset"
)

// The hooks and installers of the built-in harnesses (harness.Hook,
// harness.Installer), found by harness name, so that `notesoup hook`,
// `notesoup install` and `notesoup uninstall` name no harness themselves.

// disabledEnv, when set to anything, turns notesoup off in a harness: hooks
// answer nothing (the MCP server still serves its tools).
const disabledEnv = "NOTESOUP_DISABLED"

// find returns the named built-in without a description cache: the hooks
// and installers do not list sessions.
func find(name string) (*harness.Builtin, bool) {
	i := slices.IndexFunc(all, func(b builtin) bool { return b.name == name })
	if i < 0 {
		return nil, false
	}
	return all[i].make(), true
}

// having returns the built-in names for which has is true, in listed order.
func having(has func(*harness.Builtin) bool) []string {
	var names []string
	for _, b := range all {
		if has(b.make()) {
			names = append(names, b.name)
		}
	}
	return names
}

func hasHook(b *harness.Builtin) bool      { return b.Hook != nil }
func hasInstaller(b *harness.Builtin) bool { return b.Installer != nil }
func hasDoctor(b *harness.Builtin) bool    { return b.Doctor != nil }

// WithDoctor returns the built-in harnesses that report rows of
// `notesoup doctor`.
func WithDoctor() []string { return having(hasDoctor) }

// Doctor returns the rows the named harness reports about itself; env.Stage
// is set to where install keeps that harness's package (stage maps an
// Installer.Package name to its folder).
func Doctor(ctx context.Context, name string, env harness.DoctorEnv, stage func(pkg string) string) []harness.Check {
	b, ok := find(name)
	if !ok || b.Doctor == nil {
		return nil
	}
	env.Stage = ""
	if b.Installer != nil && b.Installer.Package != "" && stage != nil {
		env.Stage = stage(b.Installer.Package)
	}
	return b.Doctor(ctx, env)
}

// WithHook returns the built-in harnesses that run notesoup's hook command.
func WithHook() []string { return having(hasHook) }

// WithInstaller returns the built-in harnesses `notesoup install` wires.
func WithInstaller() []string { return having(hasInstaller) }

// Installer returns the named harness's installer; the error names the
// harnesses that have one.
func Installer(name string) (*harness.Installer, error) {
	if b, ok := find(name); ok && b.Installer != nil {
		return b.Installer, nil
	}
	return nil, fmt.Errorf("harness %q has no installer; notesoup installs into %s (the others load notesoup's plugins themselves, see plugins/)", name, orNone(WithInstaller()))
}

// RunHook is a hook process's whole life: args are "<harness> <event>",
// the harness's hook payload is on stdin and the answer (if any) goes to
// stdout, in that harness's hook protocol. prog is the command as the
// harness runs it, for the messages; open builds the service. Misuse exits
// 2; with NOTESOUP_DISABLED set it answers nothing, reading nothing.
func RunHook(ctx context.Context, prog string, open func() (*service.Service, func(), error), args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintf(stderr, "Usage: %s <harness> <event>  (the harness's hook JSON on stdin; written into its configuration by notesoup install <harness>)\n%s", prog, hookUsage())
		return 2
	}
	name, event := args[0], args[1]
	b, ok := find(name)
	if !ok || b.Hook == nil {
		fmt.Fprintf(stderr, "%s: harness %q has no notesoup hook; harnesses with one: %s\n", prog, name, orNone(WithHook()))
		return 2
	}
	if !slices.Contains(b.Hook.Events, event) {
		fmt.Fprintf(stderr, "%s %s: event %q is not handled; use %s\n", prog, name, event, strings.Join(b.Hook.Events, ", "))
		return 2
	}
	if _, off := os.LookupEnv(disabledEnv); off {
		return 0
	}
	return b.Hook.Run(ctx, harness.HookCall{
		Prog:  prog + " " + name,
		Event: event,
		Open: func() (harness.HookEnv, func(), error) {
			s, closeFn, err := open()
			if err != nil {
				return nil, nil, err
			}
			return hookEnv{s: s, harness: name}, closeFn, nil
		},
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
	})
}

// hookUsage lists each harness's hook events, one line each.
func hookUsage() string {
	var b strings.Builder
	for _, name := range WithHook() {
		h, _ := find(name)
		fmt.Fprintf(&b, "  %s: %s\n", name, strings.Join(h.Hook.Events, ", "))
	}
	return b.String()
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// hookEnv gives a hook the service's operations, bound to its harness.
type hookEnv struct {
	s       *service.Service
	harness string
}

var _ harness.HookEnv = hookEnv{}

func (e hookEnv) caller(session, cwd string) service.Caller {
	return service.Caller{Harness: e.harness, Session: session, Cwd: cwd}
}

// WindowOrdinal implements harness.HookEnv.
func (e hookEnv) WindowOrdinal(ctx context.Context, session, cwd string) (int, error) {
	st, err := e.s.HistoryState(ctx, e.caller(session, cwd), "")
	return st.Ordinal, err
}

// Boot implements harness.HookEnv.
func (e hookEnv) Boot(ctx context.Context, session, cwd string, ordinal int, notices []string) (string, error) {
	b, err := e.s.Boot(ctx, e.caller(session, cwd), service.BootRequest{Ordinal: ordinal, Notices: notices})
	return b.Text, err
}

// Limits implements harness.HookEnv.
func (e hookEnv) Limits(ctx context.Context, in reset.ThresholdInput) (reset.Limits, error) {
	l, err := e.s.Limits(ctx, e.harness, service.LimitsRequest{ThresholdInput: in})
	return l.Limits, err
}

// StateDir implements harness.HookEnv: <notesoup home>/state.
func (e hookEnv) StateDir() string { return filepath.Join(e.s.Home(), "state") }
