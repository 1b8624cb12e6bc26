package harness

import (
	"context"
	"io"

	"github.com/notesoup/notesoup/shared/reset"
)

// This file holds what a built-in harness may add beyond the contract: the
// hook command the harness runs on its own events and the installer that
// writes notesoup into the harness's configuration. The front end
// (cmd/notesoup, both builds) finds them through harness/builtins, so it
// names no harness.

// Hook answers the events a harness runs `notesoup hook <harness> <event>`
// for (the installer writes that command into the harness's configuration).
type Hook struct {
	// Events are the events the hook answers, in the order usage lists
	// them; any other event is a usage error before anything is read.
	Events []string
	// Run answers one event in the harness's own hook protocol: the
	// payload on call.Stdin, the answer on call.Stdout, what went wrong on
	// call.Stderr. It returns the process's exit code, which that protocol
	// also defines.
	Run func(ctx context.Context, call HookCall) int
}

// HookCall is one run of a Hook.
type HookCall struct {
	// Prog names the command in messages ("notesoup hook codex").
	Prog string
	// Event is one of Hook.Events.
	Event string
	// Open gives notesoup's operations for this harness. A hook calls it
	// once it has read a payload worth answering, and calls the returned
	// close when done.
	Open   func() (HookEnv, func(), error)
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// HookEnv is what a hook may ask of notesoup, bound to the hook's harness.
// It is in plain types so that a harness package stays below the service
// layer (harness/builtins adapts the service to it).
type HookEnv interface {
	// WindowOrdinal returns the window ordinal of the session's head, as
	// the harness's history decoder counts it.
	WindowOrdinal(ctx context.Context, session, cwd string) (int, error)
	// Boot returns the boot block for the session's window ordinal, with
	// the harness's notices.
	Boot(ctx context.Context, session, cwd string, ordinal int, notices []string) (string, error)
	// Limits resolves the harness's budget points.
	Limits(ctx context.Context, in reset.ThresholdInput) (reset.Limits, error)
	// StateDir is the directory under notesoup's home where hooks keep
	// their state; it may not exist yet.
	StateDir() string
}

// Installer writes notesoup into a harness's own configuration
// (`notesoup install <harness>`) and takes it out again
// (`notesoup uninstall <harness>`).
type Installer struct {
	// HomeFlag names the command-line flag that picks the configuration
	// directory instead of Home ("codex-home").
	HomeFlag string
	// Home returns the default configuration directory.
	Home func() (string, error)
	// Install merges notesoup in, keeping everything already there.
	Install func(InstallRequest) (InstallReport, error)
	// Uninstall removes what Install wrote and nothing else; it never
	// touches the notes.
	Uninstall func(InstallRequest) (InstallReport, error)
	// Package, for a harness that installs a package of its own (the
	// Claude Code marketplace, the Pi package), is that package's folder
	// name under share/notesoup in a release archive; empty for none.
	Package string
}

// InstallRequest says where and what to install or uninstall.
type InstallRequest struct {
	// Home is the harness's configuration directory.
	Home string
	// Binary is the absolute path of the notesoup binary the harness
	// should run (Install only).
	Binary string
	// DryRun reports what would change and writes nothing.
	DryRun bool
	// Package is the folder of the package to install (Installer.Package),
	// as found in a release or a build; empty to reuse the one in Stage.
	Package string
	// Stage is the stable folder where the package is kept once installed,
	// with the installed binaries in it (see internal/installdir); the
	// harness's configuration points there, never at Package.
	Stage string
}

// InstallReport is what an install or uninstall did, or would do.
type InstallReport struct {
	Home     string   `json:"home"`
	DryRun   bool     `json:"dry_run"`
	Changed  []string `json:"changed"` // files written or removed (or to be)
	Messages []string `json:"messages"`
	// Preview holds, with DryRun, each file that would change as it would
	// be.
	Preview []FilePreview `json:"preview,omitempty"`
}

// FilePreview is one file as a dry run would leave it.
type FilePreview struct {
	Path    string `json:"path"`
	Content string `json:"content,omitempty"`
	// Removed is true when the file would be deleted (nothing would be
	// left in it).
	Removed bool `json:"removed,omitempty"`
}
