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
	// Files lists the session files under roots without reading them. When
	// idPrefix is set it may keep only the files whose names carry a
	// matching id (each harness names a session's file for its id), so
	// finding one session reads one file, not all of them.
	Files func(roots []string, idPrefix string) ([]string, error)
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
}

var _ contract.Harness = (*Builtin)(nil)

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
		Capabilities:     []string{contract.CapSessions, contract.CapDecode, contract.CapThresholds, contract.CapBoot},
		DefaultRoots:     roots,
		SessionMetaKey:   b.SessionMetaKey,
	}, nil
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

// ListSessions implements contract.Harness.
func (b *Builtin) ListSessions(ctx context.Context, f contract.SessionFilter, fn func(history.Session) error) error {
	roots, err := b.roots(f.Roots)
	if err != nil {
		return err
	}
	files, err := b.Files(roots, f.IDPrefix)
	if err != nil {
		return err
	}
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
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
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
