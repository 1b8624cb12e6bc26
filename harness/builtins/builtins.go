// Package builtins lists the harnesses built into notesoup (Claude Code, Pi,
// Codex, Gemini CLI, GitHub Copilot CLI) and calls them in-process.
//
// The plugin host runs each of them as a subprocess, which a long-lived
// process (the MCP server) wants: a decoder that panics takes down one
// plugin, not the server. A one-shot process (the helper the Claude Code mod
// runs on every hook) answers one request and exits, so a second process is
// pure cost there (about 40 ms to start and handshake on the machine in
// BENCHMARKS.md); it calls the same implementations through Local instead.
package builtins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/copilot"
	"github.com/notesoup/notesoup/harness/gemini"
	"github.com/notesoup/notesoup/harness/pi"
)

// builtin is one harness built into notesoup.
type builtin struct {
	name string
	make func() *harness.Builtin
}

// all is every built-in harness, one line each, in the order sessions of
// equal time are shown. Adding a harness to notesoup is a package under
// harness/ and one line here.
var all = []builtin{
	{claude.Name, claude.Plugin},
	{pi.Name, pi.Plugin},
	{codex.Name, codex.Plugin},
	{gemini.Name, gemini.Plugin},
	{copilot.Name, copilot.Plugin},
}

// Names returns the built-in harness names, in their listed order.
func Names() []string {
	names := make([]string, len(all))
	for i, b := range all {
		names[i] = b.name
	}
	return names
}

// New returns the named built-in harness, or false when there is none. Its
// session descriptions are cached under $XDG_CACHE_HOME/notesoup/sessions
// (see harness.DescriptionCache), beside the search cache.
func New(name string) (*harness.Builtin, bool) {
	i := slices.IndexFunc(all, func(b builtin) bool { return b.name == name })
	if i < 0 {
		return nil, false
	}
	b := all[i].make()
	if dir, err := os.UserCacheDir(); err == nil {
		b.Cache = harness.NewDescriptionCache(filepath.Join(dir, "notesoup", "sessions", name+".bin"))
	}
	return b, true
}

// ErrUnknownHarness is returned by Local for a name that is not built in.
var ErrUnknownHarness = errors.New("no such built-in harness")

// Local calls the built-in harnesses in-process. The zero value is ready to
// use and safe for concurrent use.
type Local struct {
	mu   sync.Mutex
	made map[string]*harness.Builtin
}

// Names implements service.Harnesses: the built-in names.
func (l *Local) Names() []string { return Names() }

// Harness returns the named built-in harness.
func (l *Local) Harness(_ context.Context, name string) (contract.Harness, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.made[name]; ok {
		return b, nil
	}
	b, ok := New(name)
	if !ok {
		return nil, fmt.Errorf("harness %q: %w (known: %v)", name, ErrUnknownHarness, Names())
	}
	if l.made == nil {
		l.made = map[string]*harness.Builtin{}
	}
	l.made[name] = b
	return b, nil
}
