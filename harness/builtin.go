// Package harness holds what the built-in harness plugins (claude, pi,
// codex) share: Builtin turns a harness's plain Go functions — its session
// discovery, decoder, thresholds and reset tool name — into a
// contract.Harness that the notesoup binary serves in plugin mode.
//
// Each harness's own rules live in its subpackage; nothing here knows a
// transcript format.
package harness

import (
	"context"
	"fmt"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/boot"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/reset"
)

// Builtin is a harness implemented in this repository.
type Builtin struct {
	// Name is the harness name used in window ids and selectors.
	Name string
	// Version is the plugin version reported by Describe.
	Version string
	// ResetTool is the reset tool's name as this harness exposes it to the
	// model (Claude Code prefixes mod tools with mcp__<plugin>__); empty
	// when the harness offers no way to empty the window on request.
	ResetTool string
	// Roots returns the harness's default session roots on this machine.
	Roots func() ([]string, error)
	// Files lists the session files under roots without reading them
	// (see package walk): each one's Harness, ID (from its name) and Path.
	// When idPrefix is set it may keep only the files whose names carry a
	// matching id (each harness names a session's file for its id), so
	// finding one session reads one file, not all of them. It returns what
	// it found along with any error.
	Files func(roots []string, idPrefix string) ([]history.Session, error)
	// DescribeFile describes one session file from its head and tail.
	DescribeFile Describer
	// Cache, when set, keeps descriptions of unchanged files across
	// listings (see DescriptionCache).
	Cache *DescriptionCache
	// Decoder returns a decoder that may resolve related files under roots.
	Decoder func(roots []string) history.Decoder
	// Resolve resolves the native auto-compaction point.
	Resolve func(reset.ThresholdInput) reset.NativePoint
	// Notice, when set, renders the harness's notice for a projection
	// (Claude's incomplete-history notice) into Summary.Notice.
	Notice func(history.Summary) string
	// SessionMetaKey is the MCP tool call _meta key under which the
	// harness sends its session id (Describe reports it); empty for none.
	SessionMetaKey string
	// Hook, when set, answers the events the harness runs notesoup's hook
	// command for.
	Hook *Hook
	// Installer, when set, writes notesoup into the harness's own
	// configuration and takes it out again.
	Installer *Installer
	// Doctor, when set, reports the harness's own rows of
	// `notesoup doctor`.
	Doctor Doctor

	// RawSearch says Describe lists contract.CapRawSearch: every letter
	// and digit the decoder emits is in the file's bytes, except inside
	// SynthesizedWords, so a search may rule a file out unread by the
	// decoder.
	RawSearch bool
	// SynthesizedWords are the words (lower case) the decoder writes into
	// event text or tool names itself: Description.SynthesizedWords.
	SynthesizedWords []string
	// ForkParents, when set, says a session file may inherit another
	// session's events (Describe lists contract.CapForks) and names, from
	// the file's first line, the ids of the sessions it inherits from
	// (contract.Inheritor); none when the file holds all of its events.
	ForkParents func(firstLine []byte) []string
}

var (
	_ contract.Harness   = (*Builtin)(nil)
	_ contract.Inheritor = (*Builtin)(nil)
)

// Describe implements contract.Harness.
func (b *Builtin) Describe(context.Context) (contract.Description, error) {
	roots, err := b.Roots()
	if err != nil {
		// Describe must still answer: a harness without a resolvable home
		// can decode explicit files. The error surfaces on ListSessions.
		roots = nil
	}
	return contract.Description{
		Name:             b.Name,
		PluginVersion:    b.Version,
		ContractVersions: []int{contract.Version},
		Capabilities:     b.capabilities(),
		SynthesizedWords: b.SynthesizedWords,
		DefaultRoots:     roots,
		SessionMetaKey:   b.SessionMetaKey,
	}, nil
}

// capabilities lists what Describe says the harness can do.
func (b *Builtin) capabilities() []string {
	caps := []string{contract.CapSessions, contract.CapDecode, contract.CapThresholds, contract.CapBoot}
	if b.RawSearch {
		caps = append(caps, contract.CapRawSearch)
	}
	if b.ForkParents != nil {
		caps = append(caps, contract.CapForks)
	}
	return caps
}

// Inherits implements contract.Inheritor through ForkParents. A harness
// without it lists no contract.CapForks, so no search asks; its files
// inherit nothing.
func (b *Builtin) Inherits(firstLine []byte) []string {
	if b.ForkParents == nil {
		return nil
	}
	return b.ForkParents(firstLine)
}

func (b *Builtin) roots(given []string) ([]string, error) {
	if len(given) > 0 {
		return given, nil
	}
	r, err := b.Roots()
	if err != nil {
		return nil, fmt.Errorf("%s: default session roots: %w", b.Name, err)
	}
	return r, nil
}

// ListFiles is ListSessions with FilesOnly, handed over as one slice: each
// session file's Harness, ID and Path under roots (the default roots when
// none are given), with the error of any root that could not be read. A
// search in the same process takes its listing from here (see package
// search): it lists thousands of files on every run, and one callback per
// file would copy each into memory grown for the purpose, a page fault per
// fresh page.
func (b *Builtin) ListFiles(_ context.Context, roots []string) ([]history.Session, error) {
	roots, err := b.roots(roots)
	if err != nil {
		return nil, err
	}
	return b.Files(roots, "")
}

// ListSessions implements contract.Harness.
func (b *Builtin) ListSessions(ctx context.Context, f contract.SessionFilter, fn func(history.Session) error) error {
	roots, err := b.roots(f.Roots)
	if err != nil {
		return err
	}
	found, err := b.Files(roots, f.IDPrefix)
	if f.FilesOnly {
		// The names alone: what the walk found, with the error of any
		// root it could not read after them.
		return emitAll(ctx, found, err, fn)
	}
	if err != nil {
		return err
	}
	files := Paths(found)
	sessions, err := Describe(files, b.DescribeFile, b.Cache)
	if f.IDPrefix == "" {
		b.Cache.Forget(roots, files)
	}
	// The cache only saves the next listing work: one that cannot be
	// written (a read-only home) costs that, and must not fail this answer.
	_ = b.Cache.Save()
	if err != nil {
		return err
	}
	return emitAll(ctx, sessions, nil, fn)
}

// emitAll calls fn with each session until it or ctx fails, then returns
// listErr.
func emitAll(ctx context.Context, sessions []history.Session, listErr error, fn func(history.Session) error) error {
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return listErr
}

// Decode implements contract.Harness.
func (b *Builtin) Decode(ctx context.Context, req contract.DecodeRequest, emit history.EmitFunc) (history.Summary, error) {
	roots, err := b.roots(req.Roots)
	if err != nil {
		roots = nil // decoding an explicit file needs no roots
	}
	sum, err := b.Decoder(roots).Decode(req.Session, history.DecodeOptions{Head: req.Head}, func(e history.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return emit(e)
	})
	if b.Notice != nil {
		sum.Notice = b.Notice(sum)
	}
	return sum, err
}

// Thresholds implements contract.Harness.
func (b *Builtin) Thresholds(_ context.Context, in reset.ThresholdInput) (reset.NativePoint, error) {
	if b.Resolve == nil {
		return reset.NativePoint{Reason: b.Name + ": this plugin does not resolve thresholds"}, nil
	}
	return b.Resolve(in), nil
}

// BootBinding implements contract.Harness.
func (b *Builtin) BootBinding(_ context.Context, sessionID string, ordinal int) (contract.Binding, error) {
	id, err := boot.WindowID(b.Name, sessionID, ordinal)
	if err != nil {
		return contract.Binding{}, err
	}
	return contract.Binding{WindowID: id, ResetTool: b.ResetTool}, nil
}
