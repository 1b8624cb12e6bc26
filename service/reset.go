package service

import (
	"context"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/shared/boot"
	"github.com/notesoup/notesoup/shared/reset"
)

// LimitsRequest asks for a harness's budget points.
type LimitsRequest struct {
	reset.ThresholdInput
	// CapText is the runtime cap as a person types it ("100k", "off", "").
	CapText string
}

// LimitsResult is the budget policy's answer with the native point's source.
type LimitsResult struct {
	reset.Limits
	Native reset.NativePoint `json:"native_point"`
	// Key fingerprints every input that can move the points (model, window,
	// cap, settings, environment, overrides, the usage report's threshold
	// fields — not context fill). A caller that runs one helper process per
	// request reuses its resolved points while the key is unchanged.
	Key string `json:"key"`
}

// Limits resolves the native point through the harness plugin and applies
// the budget policy: the cap, and the margins from the notesoup object of
// the settings the harness read (its own settings files when the caller
// passed none), else of the caller's settings.
func (s *Service) Limits(ctx context.Context, harness string, req LimitsRequest) (LimitsResult, error) {
	if req.CapText != "" && req.CapText != "off" {
		c, err := reset.ParseCap(req.CapText)
		if err != nil {
			return LimitsResult{}, &CapError{err}
		}
		req.Cap = c
	}
	hz, err := s.host.Harness(ctx, harness)
	if err != nil {
		return LimitsResult{}, err
	}
	p, err := hz.Thresholds(ctx, req.ThresholdInput)
	if err != nil {
		return LimitsResult{}, err
	}
	settings := req.Settings
	if len(p.PolicySettings) > 0 {
		settings = p.PolicySettings
	}
	l, err := reset.ComputeLimits(p, reset.MarginsFromSettings(settings), req.Cap)
	if err != nil {
		return LimitsResult{}, &CapError{err}
	}
	return LimitsResult{Limits: l, Native: p, Key: reset.Fingerprint(req.ThresholdInput)}, nil
}

// CapError is a runtime cap that cannot be parsed or applied.
type CapError struct{ Err error }

func (e *CapError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *CapError) Unwrap() error { return e.Err }

// binding returns the boot binding the harness plugin gives a window.
func (s *Service) binding(ctx context.Context, harness, session string, ordinal int) (boot.Binding, error) {
	hz, err := s.host.Harness(ctx, harness)
	if err != nil {
		return boot.Binding{}, err
	}
	b, err := hz.BootBinding(ctx, session, ordinal)
	if err != nil {
		return boot.Binding{}, err
	}
	// The tool prefix is whatever the harness puts before the reset tool's
	// bare name ("mcp__notesoup__" in Claude Code, nothing elsewhere).
	prefix, ok := strings.CutSuffix(b.ResetTool, ResetToolName)
	if !ok {
		prefix = ""
	}
	return boot.Binding{WindowID: b.WindowID, ResetTool: b.ResetTool, ToolPrefix: prefix}, nil
}

// BootRequest asks for a boot block.
type BootRequest struct {
	Ordinal      int      `json:"ordinal"`
	Sticky       string   `json:"sticky,omitempty"`
	Handoff      string   `json:"handoff,omitempty"`
	Notices      []string `json:"notices,omitempty"`
	BudgetTokens int      `json:"budget_tokens,omitempty"`
	// NoResetTool leaves the reset tool out of the block, for a front end
	// that serves the model no empty_brain (the plain MCP server): the
	// boot names only tools the model has.
	NoResetTool bool `json:"no_reset_tool,omitempty"`
}

// BootResult is a boot block and the binding it was built for.
type BootResult struct {
	Binding boot.Binding `json:"binding"`
	boot.Block
}

// Boot builds the boot block the caller's harness, session and project get,
// bound by the harness plugin (window id, reset tool).
func (s *Service) Boot(ctx context.Context, c Caller, req BootRequest) (BootResult, error) {
	if c.Harness == "" || c.Session == "" {
		return BootResult{}, fmt.Errorf("boot needs the caller's harness and session id")
	}
	b, err := s.binding(ctx, c.Harness, c.Session, req.Ordinal)
	if err != nil {
		return BootResult{}, err
	}
	if req.NoResetTool {
		b.ResetTool = "" // the tool prefix stays: the notes tools keep their names
	}
	sp, err := s.space(c)
	if err != nil {
		return BootResult{}, err
	}
	blk, err := boot.FromSpace(sp, boot.Input{Binding: b, Sticky: req.Sticky, Handoff: req.Handoff, Notices: req.Notices, BudgetTokens: req.BudgetTokens})
	return BootResult{Binding: b, Block: blk}, err
}

// ResetToolName is the reset tool's bare name; harnesses may prefix it.
const ResetToolName = "empty_brain"

// stateStore is where per-session reset state lives.
func (s *Service) stateStore() reset.Store {
	return reset.Store{Dir: filepath.Join(s.home, "state")}
}

// sessionSeed derives a session's handoff seed from its identity, so every
// process serving the session picks the same paragraphs.
func sessionSeed(harness, session string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(harness + ":" + session))
	return h.Sum64()
}

// ResetOutcome is what one reset event did: the actions to perform and
// whether step events can matter in the state it left
// (reset.State.StepNeeded).
type ResetOutcome struct {
	Actions    []ActionOut `json:"actions"`
	StepNeeded bool        `json:"step_needed"`
}

// ActionOut is a reset action with the texts its performer needs.
type ActionOut struct {
	reset.Action
	// HandoffText is the chosen handoff paragraph of install_boot.
	HandoffText string `json:"handoff_text,omitempty"`
}

// ResetEvent steps the caller's persisted reset state with one event.
func (s *Service) ResetEvent(_ context.Context, c Caller, ev reset.Event) (ResetOutcome, error) {
	if c.Harness == "" || c.Session == "" {
		return ResetOutcome{}, fmt.Errorf("reset events need the caller's harness and session id")
	}
	if c.Subagent {
		ev.Subagent = true
	}
	next, acts, err := s.stateStore().Apply(c.Harness, c.Session, sessionSeed(c.Harness, c.Session), ev)
	if err != nil {
		return ResetOutcome{}, err
	}
	out := make([]ActionOut, len(acts))
	for i, a := range acts {
		out[i] = ActionOut{Action: a}
		if a.Kind == reset.ActInstallBoot {
			t, err := reset.Handoff(a.Pool, a.Handoff)
			if err != nil {
				return ResetOutcome{}, err
			}
			out[i].HandoffText = t
		}
	}
	return ResetOutcome{Actions: out, StepNeeded: next.StepNeeded()}, nil
}

// ResetState returns the caller's persisted reset state.
func (s *Service) ResetState(_ context.Context, c Caller) (reset.State, error) {
	if c.Harness == "" || c.Session == "" {
		return reset.State{}, fmt.Errorf("reset state needs the caller's harness and session id")
	}
	return s.stateStore().Load(c.Harness, c.Session, sessionSeed(c.Harness, c.Session))
}
