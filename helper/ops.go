package helper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/shared/reset"
	"github.com/notesoup/notesoup/version"
)

// Rendered is the result shape of every tool-like operation: Text is what a
// model or person is shown, Data the same answer structured for code.
type Rendered struct {
	Text string `json:"text"`
	Data any    `json:"data"`
}

func init() {
	register("version", "notesoup, helper protocol and harness contract versions", opVersion)
	register("limits", "a harness's budget points (native, hard, warning) and their source", opLimits)
	register("boot", "the boot block for the caller's harness, session and project", opBoot)
	for _, def := range notes.Tools() {
		tool := def.Name
		register("notes."+tool[len("notes_"):], "the "+tool+" tool", func(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
			if e := checkToolArgs(def, args); e != nil {
				return nil, e
			}
			r, err := s.Notes(ctx, c, tool, args)
			if err != nil {
				return nil, err
			}
			text := r.Render()
			return Rendered{Text: text, Data: withoutPage(r)}, nil
		})
	}
	register("history.list", "the history_list tool", opHistoryList)
	register("history.read", "the history_read tool", opHistoryRead)
	register("history.state", "the head's window ordinal, or a refusal when unknown", opHistoryState)
	register("history.sessions", "sessions across harnesses, newest first", opHistorySessions)
	register("reset.event", "step the caller's persisted reset state with one event", opResetEvent)
	register("reset.state", "the caller's persisted reset state", opResetState)
	register("text.warning", "the budget warning text", opWarning)
	register("text.handoff", "a handoff paragraph", opHandoff)
}

// withoutPage is a notes answer's data without the page it already gives
// as Text: a notes_read result holds its selection twice more (numbered
// as "text", verbatim as "content"), and JSON escaping can double each, so
// a 32 KiB page made a 150 KB helper answer. Text carries the page once;
// the data keeps what code needs beside it (name, size, lines, offsets).
// No helper client reads the page from the data.
func withoutPage(r any) any {
	b, err := json.Marshal(r)
	if err != nil {
		return r
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil { // not an object: nothing to drop
		return r
	}
	delete(m, "text")
	delete(m, "content")
	return m
}

// VersionResult answers version.
type VersionResult struct {
	Notesoup string `json:"notesoup"`
	Protocol int    `json:"protocol"`
	Contract int    `json:"contract"`
}

func opVersion(_ context.Context, _ *service.Service, _ service.Caller, args json.RawMessage) (any, error) {
	var none struct{}
	if err := decodeArgs(args, &none); err != nil {
		return nil, err
	}
	return VersionResult{Notesoup: version.Version, Protocol: ProtocolVersion, Contract: contract.Version}, nil
}

// LimitsArgs are the limits operation's arguments.
type LimitsArgs struct {
	Model       string            `json:"model,omitempty"`
	ModelWindow int64             `json:"model_window,omitempty"`
	Settings    json.RawMessage   `json:"settings,omitempty"` // the harness's merged settings object
	Env         map[string]string `json:"env,omitempty"`
	Usage       json.RawMessage   `json:"usage,omitempty"` // the harness's usage report object
	Home        string            `json:"home,omitempty"`
	Overrides   []string          `json:"overrides,omitempty"`
	Cap         string            `json:"cap,omitempty"` // "100k", "1.5m", "120000" or "off"
}

func opLimits(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
	var a LimitsArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if c.Harness == "" {
		return nil, &Error{Code: CodeInvalidArgument, Field: "caller.harness", Message: "limits needs the caller's harness (claude, pi or codex)"}
	}
	for _, raw := range []struct {
		field string
		v     json.RawMessage
	}{{"args.settings", a.Settings}, {"args.usage", a.Usage}} {
		if len(raw.v) > 0 && string(raw.v) != "null" && raw.v[0] != '{' {
			return nil, argErr(raw.field, "%s must be a JSON object", raw.field)
		}
	}
	r, err := s.Limits(ctx, c.Harness, service.LimitsRequest{
		ThresholdInput: reset.ThresholdInput{
			Model: a.Model, ModelWindow: a.ModelWindow, Settings: a.Settings, Env: a.Env,
			Usage: a.Usage, Cwd: c.Cwd, Home: a.Home, Overrides: a.Overrides,
		},
		CapText: a.Cap,
	})
	var capErr *service.CapError
	if errors.As(err, &capErr) {
		return nil, &Error{Code: CodeFailed, Field: "args.cap", Message: err.Error()}
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func opBoot(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
	var a service.BootRequest
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Ordinal < 0 {
		return nil, argErr("args.ordinal", "ordinal %d is negative; the first window is 0", a.Ordinal)
	}
	return s.Boot(ctx, c, a)
}

func opHistoryList(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
	a, err := history.ParseListArgs(args)
	if err != nil {
		return nil, historyArgErr(err)
	}
	page, sess, err := s.HistoryList(service.WithAnswer(ctx, helperAnswer), c, a, nil)
	if err != nil {
		return nil, err
	}
	return Rendered{Text: page.Text, Data: struct {
		Session string `json:"session"`
		history.Page
	}{service.SessionRef(sess), page}}, nil
}

func opHistoryRead(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
	a, err := history.ParseReadArgs(args)
	if err != nil {
		return nil, historyArgErr(err)
	}
	r, sess, err := s.HistoryRead(service.WithAnswer(ctx, helperAnswer), c, a, nil)
	if err != nil {
		return nil, err
	}
	return Rendered{Text: r.Text, Data: struct {
		Session string `json:"session"`
		history.ReadResult
	}{service.SessionRef(sess), r}}, nil
}

// helperAnswer is the size of a history answer as the helper writes it:
// one JSON line carrying the text and the structured data both (Rendered),
// so every entry's line and every body count twice, escaped. The reserve
// covers the envelope, the keys, the session reference (an id of at most
// a file name's 255 bytes, escaped) and the data's copy of the notice.
var helperAnswer = &history.Answer{
	Reserve: 512 + 6*255 + history.NoticeReserve,
	Entry: func(e history.Entry) int {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as Serve writes it
		_ = enc.Encode(e)
		return b.Len() + history.JSONLen(e.Line()) // Encode's newline stands for the comma
	},
	Body: func(body string) int { return 2 * history.JSONLen(body) },
	Text: history.JSONLen,
}

// historyArgErr names the field of a history argument error when the JSON
// decoder knows it, else the arguments as a whole.
func historyArgErr(err error) *Error {
	e := decodeErr("args.", err)
	if e.Field == "args" || e.Field == "args." {
		e.Field = "args"
	}
	e.Message = err.Error()
	return e
}

func opHistoryState(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
	var a struct {
		Session string `json:"session,omitempty"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	return s.HistoryState(ctx, c, a.Session)
}

// SessionsArgs are history.sessions' arguments.
type SessionsArgs struct {
	Harness string `json:"harness,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	Query   string `json:"query,omitempty"`
	Limit   int    `json:"limit,omitempty"`
}

// sessionOut is one listed session.
type sessionOut struct {
	Ref string `json:"ref"`
	history.Session
}

func opHistorySessions(ctx context.Context, s *service.Service, _ service.Caller, args json.RawMessage) (any, error) {
	var a SessionsArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Limit < 0 {
		return nil, argErr("args.limit", "limit %d is negative", a.Limit)
	}
	ss, err := s.Sessions(ctx, history.SessionQuery{Harness: a.Harness, Cwd: a.Cwd, Query: a.Query, Limit: a.Limit})
	if err != nil && len(ss) == 0 {
		return nil, err
	}
	out := struct {
		Sessions []sessionOut `json:"sessions"`
		Warnings string       `json:"warnings,omitempty"`
	}{Sessions: []sessionOut{}}
	for _, x := range ss {
		out.Sessions = append(out.Sessions, sessionOut{Ref: service.SessionRef(x), Session: x})
	}
	if err != nil {
		out.Warnings = err.Error() // some harness failed; the others answered
	}
	return out, nil
}

func opResetEvent(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
	ev, err := reset.DecodeEvent(args)
	if err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Field: "args", Message: err.Error()}
	}
	return s.ResetEvent(ctx, c, ev)
}

func opResetState(ctx context.Context, s *service.Service, c service.Caller, args json.RawMessage) (any, error) {
	var none struct{}
	if err := decodeArgs(args, &none); err != nil {
		return nil, err
	}
	return s.ResetState(ctx, c)
}

func opWarning(_ context.Context, _ *service.Service, _ service.Caller, args json.RawMessage) (any, error) {
	var a struct {
		ResetTool  string `json:"reset_tool"`
		TokensLeft int64  `json:"tokens_left"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.ResetTool == "" {
		return nil, argErr("args.reset_tool", "reset_tool is required: the reset tool's name as the model sees it")
	}
	return Rendered{Text: reset.WarningText(a.ResetTool, a.TokensLeft), Data: a}, nil
}

func opHandoff(_ context.Context, _ *service.Service, _ service.Caller, args json.RawMessage) (any, error) {
	var a struct {
		Pool  reset.Pool `json:"pool"`
		Index int        `json:"index"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Pool != reset.PoolNormal && a.Pool != reset.PoolForced {
		return nil, argErr("args.pool", "pool %q: use %q (the model asked) or %q (the budget forced)", a.Pool, reset.PoolNormal, reset.PoolForced)
	}
	t, err := reset.Handoff(a.Pool, a.Index)
	if err != nil {
		return nil, argErr("args.index", "%v", err)
	}
	return Rendered{Text: t, Data: a}, nil
}
