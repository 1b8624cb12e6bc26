package host

import (
	"context"
	"errors"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/reset"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// guarded wraps a running plugin: every call gets the host's deadline, every
// error names the plugin, and a plugin that died or timed out is forgotten so
// the next call starts a fresh one.
type guarded struct {
	h *Host
	r *running
}

var _ contract.Harness = (*guarded)(nil)

func (g *guarded) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var pe *PluginError
	if errors.As(err, &pe) {
		return err
	}
	if g.r.client.Exited() || errors.Is(err, context.DeadlineExceeded) || transportFailed(err) {
		g.h.forget(g.r)
	}
	return &PluginError{Name: g.r.cand.name, Source: g.r.cand.source, Op: op, Err: err}
}

// transportFailed reports a gRPC status that means the plugin process is
// gone or wedged (not an error the plugin chose to return): the connection
// broke, or the deadline passed. gRPC's DeadlineExceeded does not wrap
// context.DeadlineExceeded, hence the status check.
func transportFailed(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return false
}

func (g *guarded) Describe(ctx context.Context) (contract.Description, error) {
	ctx, cancel := context.WithTimeout(ctx, g.h.callTimeout)
	defer cancel()
	d, err := g.r.impl.Describe(ctx)
	return d, g.fail("describe", err)
}

func (g *guarded) ListSessions(ctx context.Context, f contract.SessionFilter, fn func(history.Session) error) error {
	ctx, cancel := context.WithTimeout(ctx, g.h.streamTimeout)
	defer cancel()
	var cbErr error
	err := g.r.impl.ListSessions(ctx, f, func(s history.Session) error {
		if s.Harness == "" {
			s.Harness = g.r.cand.name
		}
		cbErr = fn(s)
		return cbErr
	})
	if err != nil && cbErr != nil && errors.Is(err, cbErr) {
		return err // the caller's own error: not the plugin's fault
	}
	return g.fail("list sessions", err)
}

func (g *guarded) Decode(ctx context.Context, req contract.DecodeRequest, emit history.EmitFunc) (history.Summary, error) {
	ctx, cancel := context.WithTimeout(ctx, g.h.streamTimeout)
	defer cancel()
	var cbErr error
	s, err := g.r.impl.Decode(ctx, req, func(e history.Event) error {
		cbErr = emit(e)
		return cbErr
	})
	if err != nil && cbErr != nil && errors.Is(err, cbErr) {
		return s, err
	}
	return s, g.fail("decode "+req.Session.ID, err)
}

func (g *guarded) Thresholds(ctx context.Context, in reset.ThresholdInput) (reset.NativePoint, error) {
	ctx, cancel := context.WithTimeout(ctx, g.h.callTimeout)
	defer cancel()
	p, err := g.r.impl.Thresholds(ctx, in)
	return p, g.fail("thresholds", err)
}

func (g *guarded) BootBinding(ctx context.Context, sessionID string, ordinal int) (contract.Binding, error) {
	ctx, cancel := context.WithTimeout(ctx, g.h.callTimeout)
	defer cancel()
	b, err := g.r.impl.BootBinding(ctx, sessionID, ordinal)
	return b, g.fail("boot binding", err)
}
