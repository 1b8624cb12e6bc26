package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/history"
)

// catalog lists sessions through the harness plugins, so only files under a
// harness's roots are ever readable.
type catalog struct {
	ctx context.Context
	s   *Service
}

// Harnesses implements history.Catalog: every harness the service can
// reach, built in or an external plugin.
func (c catalog) Harnesses() []string { return c.s.host.Names() }

// Sessions implements history.Catalog.
func (c catalog) Sessions(harness string) ([]history.Session, error) {
	return c.SessionsWithPrefix(harness, "")
}

// SessionsWithPrefix implements history.PrefixCatalog: the harness
// describes only the files named for ids with the prefix.
func (c catalog) SessionsWithPrefix(harness, idPrefix string) ([]history.Session, error) {
	hz, err := c.s.host.Harness(c.ctx, harness)
	if err != nil {
		return nil, err
	}
	var out []history.Session
	err = hz.ListSessions(c.ctx, contract.SessionFilter{Roots: c.s.roots[harness], IDPrefix: idPrefix}, func(s history.Session) error {
		if strings.HasPrefix(s.ID, idPrefix) {
			// Titles are masked as they arrive, before a listing's query
			// matches them or a refusal quotes them.
			out = append(out, history.VisibleSession(s))
		}
		return nil
	})
	// Sessions the vault keeps whose originals are gone (service/vault.go).
	// A vault that cannot be read must not hide the harness's own sessions
	// (a listing drops a harness that errs); notesoup vault status names it.
	kept, _ := c.s.vaultSessions(c.ctx, harness, idPrefix)
	return append(out, kept...), err
}

// decoder decodes through a harness plugin.
type decoder struct {
	ctx   context.Context
	hz    contract.Harness
	roots []string
}

// Decode implements history.Decoder.
func (d decoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	return d.hz.Decode(d.ctx, contract.DecodeRequest{Session: sess, Head: opts.Head, Roots: d.roots}, emit)
}

// Sessions lists sessions across harnesses, newest first.
// A session's title (its first prompt) has its secrets masked (the catalog
// takes every title through history.VisibleSession): a listing is a
// preview, and history_read shows the prompt in full on request.
func (s *Service) Sessions(ctx context.Context, q history.SessionQuery) ([]history.Session, error) {
	return history.ListSessions(catalog{ctx, s}, q)
}

// current returns the caller's own session when the caller bound one: by
// transcript path (which must be a session the harness lists under its
// roots) or by harness and session id.
func (s *Service) current(ctx context.Context, c Caller) (*history.Session, error) {
	if c.Harness == "" || (c.Session == "" && c.Transcript == "") {
		return nil, nil
	}
	if c.Subagent {
		return nil, fmt.Errorf("history of the current session is not available to a subagent; name a session explicitly")
	}
	want := ""
	if c.Transcript != "" {
		abs, err := filepath.Abs(c.Transcript)
		if err != nil {
			return nil, fmt.Errorf("transcript %q: %w", c.Transcript, err)
		}
		want = abs
	}
	find := func(sessions []history.Session) *history.Session {
		for _, sess := range sessions {
			if want != "" && sess.Path == want || want == "" && sess.ID == c.Session {
				return &sess
			}
		}
		return nil
	}
	// The session's own file is named for its id: look there first, and
	// describe every session only when that finds nothing (a file not
	// named for its id, or a transcript bound without an id).
	cat := catalog{ctx, s}
	if c.Session != "" {
		if narrow, err := cat.SessionsWithPrefix(c.Harness, c.Session); err == nil {
			if sess := find(narrow); sess != nil {
				return sess, nil
			}
		}
	}
	sessions, err := cat.Sessions(c.Harness)
	if err != nil && len(sessions) == 0 {
		return nil, err
	}
	if sess := find(sessions); sess != nil {
		return sess, nil
	}
	if want != "" {
		return nil, fmt.Errorf("current transcript %q is not a %s session under its roots; refusing to read it", c.Transcript, c.Harness)
	}
	return nil, fmt.Errorf("current %s session %q is not on disk yet (no transcript under the %s roots); retry after its first turn is saved", c.Harness, c.Session, c.Harness)
}

// Opened is a resolved session ready to page: its projection replays the
// decode through the harness plugin on every range, and Render carries the
// harness notice (Claude's incomplete-history notice) with room reserved.
type Opened struct {
	Session    history.Session
	Projection history.Projection
	Render     history.RenderOptions
}

// Open resolves a selector ("" or "current" for the caller's own session)
// and prepares a replayable projection through the harness plugin.
func (s *Service) Open(ctx context.Context, c Caller, selector string) (Opened, error) {
	cur, err := s.current(ctx, c)
	if err != nil && (selector == "" || selector == history.SelectorCurrent) {
		return Opened{}, err
	}
	sess, err := history.Resolve(catalog{ctx, s}, selector, cur)
	if err != nil {
		return Opened{}, err
	}
	hz, err := s.host.Harness(ctx, sess.Harness)
	if err != nil {
		return Opened{}, err
	}
	head := ""
	if cur != nil && cur.Path == sess.Path {
		head = c.Head // the live head applies to the caller's own session only
	}
	proj := history.Project(decoder{ctx, hz, s.roots[sess.Harness]}, sess, history.DecodeOptions{Head: head})
	if !c.ShowSecrets {
		// Masked before paging and search, so a secret is neither shown
		// nor findable by a query (history.VisibleEvents, the one point).
		proj.Events = history.VisibleEvents(proj.Events)
	}
	return Opened{Session: sess, Projection: proj, Render: proj.RenderOptions()}, nil
}

// SessionRef names a session the way selectors do: harness:id.
func SessionRef(s history.Session) string { return s.Harness + ":" + s.ID }

type answerKey struct{}

// WithAnswer returns ctx telling HistoryList and HistoryRead how the front
// end serializes their answer (JSON, text and data both), so the page they
// choose keeps the whole answer within history.MaxResponseBytes. Without
// it the answer is taken to be the text alone.
func WithAnswer(ctx context.Context, a *history.Answer) context.Context {
	return context.WithValue(ctx, answerKey{}, a)
}

func answerOf(ctx context.Context) *history.Answer {
	a, _ := ctx.Value(answerKey{}).(*history.Answer)
	return a
}

// HistoryList runs history_list. hint, when non-nil, renders how to fetch
// another page (a CLI command); nil renders a history_list call.
func (s *Service) HistoryList(ctx context.Context, c Caller, args history.ListArgs, hint func(sessionRef string, next history.ListQuery) string) (history.Page, history.Session, error) {
	if err := args.Validate(); err != nil {
		return history.Page{}, history.Session{}, err
	}
	o, err := s.Open(ctx, c, args.Session)
	if err != nil {
		return history.Page{}, history.Session{}, err
	}
	ref := SessionRef(o.Session)
	if hint != nil {
		o.Render.ListHint = func(n history.ListQuery) string { return hint(ref, n) }
	} else if args.Session != "" {
		o.Render.ListHint = func(n history.ListQuery) string { return listCall(args.Session, n) }
	}
	o.Render.Answer = answerOf(ctx)
	// A query over a session the search index holds unchanged is answered
	// from its matches there (historyindex.go), not a whole decode.
	o = s.Narrowed(ctx, c, o, args.Query)
	page, err := retrying(ctx, func() (history.Page, error) { return history.List(o.Projection.Events, args.ListQuery, o.Render) })
	if err != nil {
		// The session's notice accompanies errors too.
		return page, o.Session, errors.New(o.Render.Wrap(err.Error()))
	}
	return page, o.Session, nil
}

// HistoryRead runs history_read.
func (s *Service) HistoryRead(ctx context.Context, c Caller, args history.ReadArgs, hint func(sessionRef string, seq int64, offset int) string) (history.ReadResult, history.Session, error) {
	if err := args.Validate(); err != nil {
		return history.ReadResult{}, history.Session{}, err
	}
	o, err := s.Open(ctx, c, args.Session)
	if err != nil {
		return history.ReadResult{}, history.Session{}, err
	}
	ref := SessionRef(o.Session)
	if hint != nil {
		o.Render.ReadHint = func(seq int64, off int) string { return hint(ref, seq, off) }
	} else if args.Session != "" {
		o.Render.ReadHint = func(seq int64, off int) string {
			return fmt.Sprintf("history_read session=%q seq=%d offset=%d", args.Session, seq, off)
		}
	}
	o.Render.Answer = answerOf(ctx)
	r, err := retrying(ctx, func() (history.ReadResult, error) { return history.Read(o.Projection.Events, args.ReadQuery, o.Render) })
	if err != nil {
		return r, o.Session, errors.New(o.Render.Wrap(err.Error()))
	}
	return r, o.Session, nil
}

// StateResult answers history_state.
type StateResult struct {
	Session string   `json:"session"`
	Window  string   `json:"window"`
	Ordinal int      `json:"ordinal"`
	Windows []string `json:"windows"`
}

// HistoryState returns the head's independently resolved window ordinal, or
// an explicit refusal when it is unknown.
func (s *Service) HistoryState(ctx context.Context, c Caller, selector string) (StateResult, error) {
	o, err := s.Open(ctx, c, selector)
	if err != nil {
		return StateResult{}, err
	}
	_, err = retrying(ctx, func() (struct{}, error) {
		for _, err := range o.Projection.Events {
			if err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	if err != nil {
		return StateResult{}, err
	}
	sum := o.Projection.Summary()
	ord, err := history.State(sum)
	if err != nil {
		return StateResult{}, err
	}
	windows := sum.Windows
	if windows == nil {
		windows = []string{} // JSON answers show [], not null
	}
	return StateResult{Session: SessionRef(o.Session), Window: sum.HeadWindow, Ordinal: ord, Windows: windows}, nil
}

// listCall renders a history_list call for another page of an explicit session.
func listCall(session string, q history.ListQuery) string {
	parts := []string{fmt.Sprintf("history_list session=%q", session)}
	if q.Query != "" {
		parts = append(parts, fmt.Sprintf("query=%q", q.Query))
	}
	if len(q.Roles) > 0 {
		rs := make([]string, len(q.Roles))
		for i, r := range q.Roles {
			rs[i] = string(r)
		}
		parts = append(parts, "roles="+strings.Join(rs, ","))
	}
	if q.Window != "" {
		parts = append(parts, fmt.Sprintf("window=%q", q.Window))
	}
	if q.After > 0 {
		parts = append(parts, fmt.Sprintf("after=%d", q.After))
	}
	if q.Oldest {
		parts = append(parts, "oldest=true")
	}
	if q.Before > 0 {
		parts = append(parts, fmt.Sprintf("before=%d", q.Before))
	}
	if q.Limit > 0 {
		parts = append(parts, fmt.Sprintf("limit=%d", q.Limit))
	}
	return strings.Join(parts, " ")
}

// retryDelays is how long history calls wait for a harness still writing its
// transcript (a live head reported before it reaches the disk): Claude
// flushes within milliseconds, so about 1.5 s in all is ample and bounded.
var retryDelays = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// retrying runs f again while it fails with a retryable refusal, then
// returns its last answer: a refusal the caller may still see and retry.
func retrying[T any](ctx context.Context, f func() (T, error)) (T, error) {
	for i := 0; ; i++ {
		v, err := f()
		if err == nil || !history.IsRetryable(err) || i == len(retryDelays) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(retryDelays[i]):
		}
	}
}
