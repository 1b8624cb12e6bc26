package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/notesoup/notesoup/contract"
)

// maxMessages bounds the messages of one session read into memory (their
// ids and times, a few hundred bytes each); a session with more is refused.
const maxMessages = 1 << 20

// projector turns a session's messages and parts, in order, into events.
//
// Addresses are stable as the session grows because they are allocated
// from what never changes once a row exists: messages in (time_created,
// id) order, parts in id order (OpenCode's ids ascend as it creates them),
// and a fixed number of addresses per part type, whatever the part holds
// yet — one for a text, file or subtask part (emitted once it has text),
// two for a tool part (its call, and its result once the call ends).
// A pending call's result address is a gap until then. Reasoning, step,
// snapshot, patch, agent and retry parts, and types this plugin does not
// know, take none and show nothing. A compaction part starts the next
// window; the summary that follows it is a notice in that window.
type projector struct {
	id      string
	seq     int64
	ordinal int
	windows []string
	emit    contract.EmitFunc
	// emitErr is the error emit returned, passed back unchanged.
	emitErr error
	// parent is the session that started this one (a subagent's), or "".
	parent string
}

// send emits ev, remembering emit's error so Decode returns it as it was.
func (p *projector) send(ev contract.Event) error {
	if err := p.emit(ev); err != nil {
		p.emitErr = err
		return err
	}
	return nil
}

func newProjector(id string, emit contract.EmitFunc) *projector {
	return &projector{id: id, ordinal: 1, windows: []string{windowID(id, 1)}, emit: emit}
}

func (p *projector) window() string { return p.windows[len(p.windows)-1] }

// summary is what the decode knew at the end.
func (p *projector) summary() contract.Summary {
	sum := contract.Summary{Windows: p.windows, HeadWindow: p.window(), HeadKnown: true, HeadOrdinal: p.ordinal}
	if p.parent != "" {
		sum.Notice = fmt.Sprintf("This is a subagent's session, started by a task tool call of %s:%s.", Name, p.parent)
	}
	return sum
}

// msTime converts Unix milliseconds; 0 is no time.
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// startOr returns s's start, else def.
func startOr(s *span, def time.Time) time.Time {
	if s != nil && s.Start > 0 {
		return msTime(s.Start)
	}
	return def
}

// endOr returns s's end, else def.
func endOr(s *span, def time.Time) time.Time {
	if s != nil && s.End > 0 {
		return msTime(s.End)
	}
	return def
}

// part emits the events of one part of message m (created at at).
func (p *projector) part(m messageData, at time.Time, d partData) error {
	role := contract.RoleUser
	if m.Role == "assistant" {
		role = contract.RoleAssistant
	}
	switch d.Type {
	case "text":
		p.seq++
		if d.Text == "" || d.Ignored {
			return nil
		}
		ev := contract.Event{Seq: p.seq, Window: p.window(), Kind: contract.KindMessage, Role: role, Text: d.Text, Time: startOr(d.Time, at)}
		if d.Synthetic || m.isSummary() {
			// Written by OpenCode, not by the user or the model's turn:
			// a compaction's summary, a "continue" after it, a note
			// about a file the user attached.
			ev.Kind, ev.Role = contract.KindNotice, contract.RoleSystem
		}
		return p.send(ev)
	case "file":
		p.seq++
		name := d.Filename
		if name == "" && len(d.URL) < 512 && !hasPrefixFold(d.URL, "data:") {
			name = d.URL
		}
		if name == "" {
			return nil
		}
		return p.send(contract.Event{Seq: p.seq, Window: p.window(), Kind: contract.KindAttachment, Role: role, Text: name, Time: at})
	case "subtask":
		p.seq++
		if d.Prompt == "" {
			return nil
		}
		return p.send(contract.Event{Seq: p.seq, Window: p.window(), Kind: contract.KindMessage, Role: role, Text: d.Prompt, Time: at})
	case "tool":
		p.seq += 2
		use, res := p.seq-1, p.seq
		st := d.State
		done := st.Status == "completed" || st.Status == "error"
		ev := contract.Event{Seq: use, Window: p.window(), Kind: contract.KindToolUse, Role: contract.RoleTool,
			ToolName: d.Tool, ToolID: d.CallID, ToolInput: compactJSON(st.Input), Time: startOr(st.Time, at)}
		if done {
			ev.PairSeq = res
		}
		if err := p.send(ev); err != nil || !done {
			return err
		}
		r := contract.Event{Seq: res, Window: p.window(), Kind: contract.KindToolResult, Role: contract.RoleTool,
			ToolName: d.Tool, ToolID: d.CallID, Text: st.Output, PairSeq: use, Time: endOr(st.Time, ev.Time)}
		if st.Status == "error" {
			r.Text, r.IsError = st.Error, true
		}
		return p.send(r)
	case "compaction":
		p.ordinal++
		p.windows = append(p.windows, windowID(p.id, p.ordinal))
		return nil
	default:
		return nil // reasoning is never shown; step, snapshot, patch, agent, retry and unknown parts carry no dialogue
	}
}

// endMessage emits what a message says once its parts are done: the
// error an assistant message ended with.
func (p *projector) endMessage(m messageData, at time.Time) error {
	if m.Error == nil {
		return nil
	}
	p.seq++
	text := "error: " + m.Error.Name
	if m.Error.Data.Message != "" {
		text += ": " + m.Error.Data.Message
	}
	return p.send(contract.Event{Seq: p.seq, Window: p.window(), Kind: contract.KindNotice, Role: contract.RoleSystem, Text: text, Time: at})
}

// hasPrefixFold reports whether s starts with the ASCII prefix, in any case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// msgRow is one message row as the decode reads it: data is nil when the
// row is over maxRowBytes.
type msgRow struct {
	id      string
	created int64
	size    int64
	data    []byte
}

// Decode implements contract.Harness. It reads the session's rows in one
// read transaction and emits them in address order (see projector). A
// row whose JSON is damaged, or over maxRowBytes, refuses the session,
// naming the database and the row.
func (Harness) Decode(ctx context.Context, req contract.DecodeRequest, emit contract.EmitFunc) (contract.Summary, error) {
	id := req.Session.ID
	if !validID(id) {
		return contract.Summary{}, &contract.Refusal{Harness: Name, Path: req.Session.Path, Reason: fmt.Sprintf("session id %q: %s", id, idRule)}
	}
	roots, err := rootsOr(req.Roots)
	if err != nil {
		return contract.Summary{}, err
	}
	st, err := openStore(req.Session.Path, roots)
	if err != nil {
		return contract.Summary{}, err
	}
	defer st.Close()
	p := newProjector(id, emit)
	err = st.read(ctx, func(tx *sql.Tx) error { return decodeSession(ctx, tx, st.path, id, p) })
	if p.emitErr != nil {
		return p.summary(), p.emitErr // contract.ErrStopped included, unchanged
	}
	return p.summary(), err
}

// decodeSession reads session id's messages and their parts through tx.
func decodeSession(ctx context.Context, tx *sql.Tx, path, id string, p *projector) error {
	var parent sql.NullString
	switch err := tx.QueryRowContext(ctx, `SELECT parent_id FROM session WHERE id = ?`, id).Scan(&parent); {
	case errors.Is(err, sql.ErrNoRows):
		return &contract.Refusal{Harness: Name, Path: path, Reason: fmt.Sprintf("no session %s in the database", id)}
	case err != nil:
		return err
	}
	if parent.Valid && validID(parent.String) {
		p.parent = parent.String
	}
	msgs, err := messages(ctx, tx, path, id)
	if err != nil {
		return err
	}
	// One statement for every message's parts: preparing it per message
	// cost most of a long session's decode.
	partsOf, err := tx.PrepareContext(ctx, `SELECT id, octet_length(data), CASE WHEN octet_length(data) <= ? THEN data END
		FROM part WHERE message_id = ? ORDER BY id`)
	if err != nil {
		return err
	}
	defer partsOf.Close()
	for _, m := range msgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		refuse := func(what, rowID string, err error) error {
			return &contract.Refusal{Harness: Name, Path: path, Reason: fmt.Sprintf("%s %s of session %s: %v", what, rowID, id, err)}
		}
		if m.data == nil {
			return refuse("message", m.id, fmt.Errorf("its data is %d bytes, over the %d MiB bound", m.size, maxRowBytes>>20))
		}
		md, err := parseMessage(m.data)
		if err != nil {
			return refuse("message", m.id, err)
		}
		at := msTime(m.created)
		rows, err := partsOf.QueryContext(ctx, maxRowBytes, m.id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var pid string
			var size int64
			var data []byte
			if err := rows.Scan(&pid, &size, &data); err != nil {
				rows.Close()
				return err
			}
			if data == nil {
				rows.Close()
				return refuse("part", pid, fmt.Errorf("its data is %d bytes, over the %d MiB bound", size, maxRowBytes>>20))
			}
			pd, err := parsePart(data)
			if err != nil {
				rows.Close()
				return refuse("part", pid, err)
			}
			if err := p.part(md, at, pd); err != nil {
				rows.Close()
				return err // contract.ErrStopped included, unchanged
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return err
		}
		if err := p.endMessage(md, at); err != nil {
			return err
		}
	}
	return nil
}

// messages reads session id's message rows in address order.
func messages(ctx context.Context, tx *sql.Tx, path, id string) ([]msgRow, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, time_created, octet_length(data), CASE WHEN octet_length(data) <= ? THEN data END
		FROM message WHERE session_id = ? ORDER BY time_created, id`, maxRowBytes, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []msgRow
	for rows.Next() {
		if len(out) == maxMessages {
			return nil, &contract.Refusal{Harness: Name, Path: path, Reason: fmt.Sprintf("session %s has more than %d messages", id, maxMessages)}
		}
		var m msgRow
		if err := rows.Scan(&m.id, &m.created, &m.size, &m.data); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
