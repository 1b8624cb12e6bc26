// Package service is the one implementation of every notesoup operation
// that a front end exposes: the helper protocol, the MCP server and the CLI
// all call it, so a note written from Pi reads the same from Claude Code or
// Codex, and history pages identically everywhere.
//
// It joins the harness-neutral packages (shared/notes, shared/history,
// shared/reset, shared/boot) to the harnesses: plugins reached through the
// host, or the built-ins called in-process (see Harnesses).
package service

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/notes"
)

// Harnesses finds a harness by name. The plugin host (host.Host) is one: each
// harness is a subprocess plugin, which suits a long-lived process. The
// built-ins called in-process (builtins.Local) are the other, which suits a
// process that answers one request and exits. Errors name the harness.
type Harnesses interface {
	// Names lists every harness there is, in the order sessions of equal
	// time are shown: what history lists, searches and accepts in a
	// selector.
	Names() []string
	// Harness returns the named harness.
	Harness(ctx context.Context, name string) (contract.Harness, error)
}

// Service holds what operations share within one process: the notes store
// and the harnesses. It is safe for concurrent use.
type Service struct {
	home  string
	notes *notes.Store
	host  Harnesses
	roots map[string][]string
	// searchCache is the search index folder history_list reads
	// (WithSearchCache); "" reads none.
	searchCache string
}

// Option configures a Service.
type Option func(*Service)

// WithHome sets the notesoup home (default $NOTESOUP_HOME, else ~/.notesoup).
func WithHome(dir string) Option { return func(s *Service) { s.home = dir } }

// WithRoots overrides the session roots of one harness (default: the
// plugin's own default roots).
func WithRoots(harness string, roots ...string) Option {
	return func(s *Service) { s.roots[harness] = roots }
}

// New returns a service over h. The caller owns h (and closes it, if it is a
// host).
func New(h Harnesses, opts ...Option) (*Service, error) {
	s := &Service{host: h, roots: map[string][]string{}}
	for _, o := range opts {
		o(s)
	}
	if s.home == "" {
		home, err := notes.DefaultHome()
		if err != nil {
			return nil, err
		}
		s.home = home
	}
	abs, err := filepath.Abs(s.home)
	if err != nil {
		return nil, fmt.Errorf("notesoup home %q: %w", s.home, err)
	}
	s.home = abs
	s.notes = notes.Open(abs)
	return s, nil
}

// Home returns the notesoup home directory.
func (s *Service) Home() string { return s.home }

// Harnesses returns the harnesses the service calls.
func (s *Service) Harnesses() Harnesses { return s.host }

// Caller says who is asking: which harness, which session and where. Every
// field is optional for operations that do not need it; an operation that
// does needs it says so in its error.
type Caller struct {
	Harness string `json:"harness,omitempty"`
	// Session is the caller's own session id (binds "current" history).
	Session string `json:"session,omitempty"`
	// Cwd is the session's working directory (selects the project notes).
	Cwd string `json:"cwd,omitempty"`
	// Transcript is the caller's own transcript path when the harness
	// reports it (Claude Code's transcript_path). It must lie under that
	// harness's session roots.
	Transcript string `json:"transcript,omitempty"`
	// Head is the live head record the harness reported (Claude Code's
	// session.append result uuid); empty selects the head offline.
	Head string `json:"head,omitempty"`
	// Subagent is true when the call comes from a subagent conversation.
	Subagent bool `json:"subagent,omitempty"`
	// ShowSecrets turns off the masking of secrets (API keys, tokens,
	// private keys, password assignments) in history output. Masking is on
	// by default because transcripts record whatever a tool printed; only a
	// person asking explicitly (a CLI flag) should turn it off.
	ShowSecrets bool `json:"show_secrets,omitempty"`
}

// cwdOr returns the caller's cwd, or the process's when the caller gave none.
func (c Caller) cwdOr() (string, error) {
	if c.Cwd != "" {
		return c.Cwd, nil
	}
	return os.Getwd()
}

// space returns the notes the caller's project sees.
func (s *Service) space(c Caller) (*notes.Space, error) {
	cwd, err := c.cwdOr()
	if err != nil {
		return nil, err
	}
	return s.notes.Space(cwd)
}

// Notes runs one notes tool with its JSON arguments.
func (s *Service) Notes(_ context.Context, c Caller, tool string, args []byte) (notes.Result, error) {
	sp, err := s.space(c)
	if err != nil {
		return nil, err
	}
	return sp.Call(tool, args)
}
