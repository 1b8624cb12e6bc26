// Package oneshot is the one statement of how a process that answers one
// request and exits (a CLI command, the helper protocol, a Codex hook)
// reaches each harness:
//
//   - a built-in harness is called in-process (harness/builtins): a plugin
//     subprocess would cost its start and handshake (about 40 ms, see
//     BENCHMARKS.md) for one call;
//   - a harness an external plugin provides, whether it overrides a
//     built-in or adds a new name, goes through the plugin host, exactly as
//     in the MCP server, so every front end answers from the same
//     implementation;
//   - a build that links no plugin host (notesoup built with the "light"
//     tag, which leaves out gRPC, go-plugin and the MCP SDK to start fast)
//     cannot do the second, so as soon as any external plugin exists it
//     gives the whole command, stdin unread, to the full build installed
//     beside it (internal/handover).
//
// The package links no gRPC: the plugin host is passed in (Policy.NewHost)
// by the builds that have one.
package oneshot

import (
	"context"
	"errors"
	"fmt"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/internal/handover"
	"github.com/notesoup/notesoup/service"
)

// Host is the plugin host as the policy uses it; *host.Host is one.
type Host interface {
	service.Harnesses
	// Close stops every plugin the host started.
	Close()
}

// Policy is the policy of one build: NewHost starts the plugin host, and is
// nil in a build that links none.
type Policy struct {
	NewHost func() Host
}

// ErrNoHost is returned for a harness only an external plugin provides, by
// a build that cannot load plugins. Start hands such a process over before
// it gets here; this error means a plugin appeared after it started.
var ErrNoHost = errors.New("an external plugin provides it, and this build of notesoup cannot load plugins")

// Start applies the policy at the start of a process, before anything has
// read stdin: in a build without a plugin host it hands the whole command
// (args, without the program name) to the full build as soon as an
// external plugin exists, since only that build can load it. It returns nil
// when this process may answer; otherwise it returns only if the hand-over
// failed, with an error that says what to install.
func (p Policy) Start(args []string) error {
	if p.NewHost != nil {
		return nil
	}
	ext := external()
	if len(ext) == 0 {
		return nil
	}
	return handOver(args, fmt.Sprintf("the external harness plugin %s", ext[0].Path))
}

// HandOver gives a command that only the full build has (the MCP server,
// plugin mode, the plugin listing) to it. It returns only on failure.
func HandOver(args []string) error {
	return handOver(args, "")
}

// handOver replaces the process with the full build running args; why says
// what made it necessary, when it is not the command itself.
func handOver(args []string, why string) error {
	what := "this command"
	if len(args) > 0 {
		what = fmt.Sprintf("%q", args[0])
	}
	need := what + " needs"
	if why != "" {
		need = fmt.Sprintf("%s is installed, and loading it needs", why)
	}
	full, err := handover.Find(handover.HostBinary)
	if err != nil {
		return fmt.Errorf("%s the full build of notesoup, which is not installed beside this one or on PATH; reinstall with `make build`, or install the single full binary with `go install github.com/notesoup/notesoup/cmd/notesoup@latest`", need)
	}
	err = execFull(full, args)
	return fmt.Errorf("%s the full build of notesoup, which could not start: %w", need, err)
}

// execFull is handover.Exec; a variable so the tests can see a hand-over
// without losing their process.
var execFull = handover.Exec

// Harnesses returns the harnesses a one-shot process calls, under p. The
// caller closes them.
func (p Policy) Harnesses() *Harnesses {
	h := &Harnesses{external: map[string]bool{}}
	for _, e := range external() {
		h.external[e.Name] = true
	}
	if len(h.external) > 0 && p.NewHost != nil {
		// Only then: a build with the host but no plugin to load skips the
		// host's set-up (its logger) on every start.
		h.host = p.NewHost()
	}
	return h
}

// Harnesses implements service.Harnesses for a one-shot process; see the
// package comment. It is safe for concurrent use.
type Harnesses struct {
	local    builtins.Local
	external map[string]bool // harness names an external plugin provides
	host     Host            // nil without external plugins or without a host
}

var _ service.Harnesses = (*Harnesses)(nil)

// Names implements service.Harnesses: the built-ins, and with a host every
// external plugin, in the host's order.
func (h *Harnesses) Names() []string {
	if h.host != nil {
		return h.host.Names()
	}
	return builtins.Names()
}

// Harness implements service.Harnesses.
func (h *Harnesses) Harness(ctx context.Context, name string) (contract.Harness, error) {
	if !h.external[name] {
		// Local names the known harnesses when name is none of them.
		return h.local.Harness(ctx, name)
	}
	if h.host == nil {
		return nil, fmt.Errorf("harness %q: %w", name, ErrNoHost)
	}
	return h.host.Harness(ctx, name)
}

// Close stops any plugin the host started.
func (h *Harnesses) Close() {
	if h.host != nil {
		h.host.Close()
	}
}

// external returns the external plugins in the default plugin directories.
// Start and Harnesses each look (a directory read or two, microseconds): a
// plugin installed in between makes Harness refuse with ErrNoHost rather
// than answer from the wrong implementation.
func external() []plugindir.External {
	return plugindir.Discover(plugindir.DefaultDirs())
}
