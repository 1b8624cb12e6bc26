package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/history"
)

// Decoder decodes Gemini CLI chat files: JSONL (0.39 on) and the older
// whole-file JSON. The zero value is ready to use and safe for concurrent
// use.
type Decoder struct{}

var _ history.Decoder = Decoder{}

// Decode reads the chat at sess.Path and emits its events in seq order.
//
// Addresses are allocated in first-occurrence order of what is shown: a
// message's text, each tool call and each call's result, keyed by the
// message and call ids the CLI gives them. The CLI writes a message again,
// whole, each time it grows (its tool calls, their results, its tokens),
// and replaces the whole history with $set.messages on every resume; the
// latest version of a message is shown at the address its first one got,
// so addresses never move as the file grows.
//
// A $rewindTo cuts the history at a message: the messages cut are
// abandoned and not shown (their addresses are not reused). A
// $set.messages that brings in a user message never seen before (the
// compression's state snapshot) is a compression: it opens the next window,
// whose first event is the snapshot as a notice; the other messages it
// brings in are the kept history under new ids, shown already.
func (Decoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	f, fi, err := rawread.Open(sess.Path)
	if err != nil {
		return history.Summary{}, fmt.Errorf("gemini history: open chat file: %w", err)
	}
	defer f.Close()
	if strings.HasSuffix(sess.Path, ".json") {
		return decodeLegacy(f, fi.Size(), sess.Path, emit)
	}
	return decode(f, fi.Size(), sess.Path, emit)
}

// refusal is the decoder's one error: a chat it cannot decode faithfully,
// naming the file and the 1-based line (0 for the whole file). retry is
// true when a write in progress may explain it.
func refusal(path string, line int, retry bool, reason string) *history.Refusal {
	return &history.Refusal{Harness: Name, Path: path, Line: line, Reason: reason, Retry: retry}
}

// readErr reports a failure to read path: a line over the bound is a
// refusal naming the file and line, anything else an I/O error.
func readErr(path string, err error) error {
	var long *jsonl.LineTooLongError
	if errors.As(err, &long) {
		return refusal(path, long.Line, false, long.Error())
	}
	return fmt.Errorf("gemini history: read %s: %w", path, err)
}

// decode reads a JSONL chat of size bytes from r in one pass, then emits.
func decode(r io.ReaderAt, size int64, path string, emit history.EmitFunc) (history.Summary, error) {
	f := jsonl.NewFile(r, size)
	defer f.Release()
	lr := f.Lines(size)
	st := newState(path)
	first := true
	for {
		b, terminated, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return refusalSummary(readErr(path, err))
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		l, perr := parseLine(b)
		if first {
			switch {
			case perr != nil && !terminated:
				return refusalSummary(refusal(path, lr.Line, true, "the chat's metadata line is incomplete (a write in progress?); retry"))
			case perr != nil:
				return refusalSummary(refusal(path, lr.Line, false, perr.Error()))
			case l.kind != recMetadata:
				return refusalSummary(refusal(path, lr.Line, false, "not a Gemini CLI chat: its first record has no sessionId and projectHash"))
			}
			if err := st.begin(l.sessionID, lr.Line); err != nil {
				return refusalSummary(err)
			}
			first = false
		}
		if perr != nil {
			if !terminated {
				break // a torn last line: a write in progress, not yet history
			}
			return refusalSummary(refusal(path, lr.Line, false, perr.Error()))
		}
		st.apply(l, lr.Line)
	}
	if first {
		return refusalSummary(refusal(path, 0, true, "the chat file is empty: the Gemini CLI writes its metadata line when the chat starts; retry"))
	}
	return st.finish(emit)
}

// refusalSummary reports a refusal as a projection note too, so a caller
// that only renders notes still says why nothing is shown.
func refusalSummary(err error) (history.Summary, error) {
	var re *history.Refusal
	if !errors.As(err, &re) {
		return history.Summary{}, err
	}
	return history.Summary{Notes: []history.ProjectionNote{{Kind: history.NoteRefusal, Message: re.Error(), Line: re.Line}}}, err
}

// itemKind is what an address shows.
type itemKind uint8

const (
	itemMessage itemKind = iota
	itemNotice
	itemUse
	itemResult
)

// item is one address: allocated at its first occurrence, filled from the
// latest version of what it shows.
type item struct {
	seq     int64
	ord     int
	owner   string // the message id it belongs to
	kind    itemKind
	role    history.Role
	text    string
	name    string // tool name
	callID  string
	input   string
	isError bool
	time    time.Time
	line    int
}

// state is what a pass over a chat learns.
type state struct {
	path      string
	sessionID string
	seq       int64
	ord       int
	items     map[string]*item // "m:"+message id, "u:"/"r:"+call id
	order     []*item          // in seq order
	seen      map[string]bool  // message ids ever recorded
	live      []string         // the history as the CLI would load it now
	inLive    map[string]bool  // the ids in live
	abandoned map[string]bool  // message ids cut by a rewind, until recorded again
	summary   map[string]bool  // a compression's state snapshot
	copies    map[string]bool  // the messages a compression brought in besides it
}

func newState(path string) *state {
	return &state{
		path: path, items: map[string]*item{}, seen: map[string]bool{}, inLive: map[string]bool{},
		abandoned: map[string]bool{}, summary: map[string]bool{}, copies: map[string]bool{},
	}
}

// begin takes the session id from the chat's first metadata line; it names
// the windows, so it must be one a window id can carry.
func (s *state) begin(id string, line int) error {
	if id == "" || strings.IndexFunc(id, func(r rune) bool { return r == ':' || r <= ' ' || r == 0x7f }) >= 0 || len(id) > 256 {
		return refusal(s.path, line, false, fmt.Sprintf("sessionId %q cannot name a window (empty, too long, or holding ':', a space or a control character)", clip(id)))
	}
	s.sessionID = id
	return nil
}

// apply takes one line into the state.
func (s *state) apply(l line, n int) {
	switch l.kind {
	case recRewind:
		s.rewind(l.rewindTo)
	case recMessage:
		s.message(*l.msg, n)
	case recSet, recMetadata:
		if !l.hasMessages {
			return
		}
		if l.kind == recSet {
			s.replace(l.messages, n)
			return
		}
		for _, m := range l.messages { // a metadata record adds to the history
			s.message(m, n)
		}
	}
}

// rewind cuts the history at id, as the CLI does: id and everything after
// it are abandoned; an id it does not hold abandons the whole history.
func (s *state) rewind(id string) {
	cut := 0
	for i, m := range s.live {
		if m == id {
			cut = i
			break
		}
	}
	for _, m := range s.live[cut:] {
		s.abandoned[m] = true
		delete(s.inLive, m)
	}
	s.live = s.live[:cut]
}

// replace takes a whole history ($set.messages). One that brings in a user
// message with text never seen before is a compression: the next window
// opens with that message as its snapshot.
func (s *state) replace(msgs []message, n int) {
	snapshot := ""
	for _, m := range msgs {
		if s.seen[m.ID] || m.Type != "user" {
			continue
		}
		if t, _ := visibleText(m.Content); strings.TrimSpace(t) != "" && !isContext(t) {
			snapshot = m.ID
			break
		}
	}
	if snapshot != "" {
		s.ord++
		s.summary[snapshot] = true
		for _, m := range msgs {
			if !s.seen[m.ID] && m.ID != snapshot {
				s.copies[m.ID] = true
			}
		}
	}
	s.live = s.live[:0]
	clear(s.inLive)
	for _, m := range msgs {
		s.message(m, n)
	}
}

// put returns the item at key, allocating its address now if it has none.
func (s *state) put(key, owner string, kind itemKind) *item {
	it := s.items[key]
	if it == nil {
		s.seq++
		it = &item{seq: s.seq, ord: s.ord, owner: owner, kind: kind}
		s.items[key] = it
		s.order = append(s.order, it)
	}
	return it
}

// message takes one version of a message, adding it to the end of the
// history when it is not there yet (as the CLI's Map keeps the first
// position of an id).
func (s *state) message(m message, n int) {
	s.seen[m.ID] = true
	delete(s.abandoned, m.ID)
	if !s.inLive[m.ID] {
		s.live = append(s.live, m.ID)
		s.inLive[m.ID] = true
	}
	at := parseTime(m.Timestamp)
	text, responses := visibleText(m.Content)
	shown := strings.TrimSpace(text) != ""
	switch m.Type {
	case "user":
		// A compression's snapshot is the CLI's, not the user's words.
		switch {
		case !shown || isContext(text) || s.copies[m.ID]:
		case s.summary[m.ID]:
			s.fill(s.put("m:"+m.ID, m.ID, itemNotice), history.RoleSystem, text, at, n)
		default:
			s.fill(s.put("m:"+m.ID, m.ID, itemMessage), history.RoleUser, text, at, n)
		}
		// Tool results travel back as function responses too; they
		// stand in for a result the call itself does not carry.
		for _, r := range responses {
			if _, called := s.items["u:"+r.ID]; !called || r.ID == "" {
				continue
			}
			if res := s.items["r:"+r.ID]; res != nil && res.text != "" {
				continue
			}
			rt, isErr := responseText(r.Response)
			it := s.put("r:"+r.ID, s.items["u:"+r.ID].owner, itemResult)
			s.fillTool(it, r.Name, r.ID, "", rt, isErr, at, n)
		}
	case "gemini":
		if shown && !s.copies[m.ID] {
			s.fill(s.put("m:"+m.ID, m.ID, itemMessage), history.RoleAssistant, text, at, n)
		}
		for _, tc := range m.ToolCalls {
			s.fillTool(s.put("u:"+tc.ID, m.ID, itemUse), tc.Name, tc.ID, compactArgs(tc.Args), "", false, at, n)
			rt, isErr := resultText(tc.Result)
			if rt == "" && tc.Status != "error" && tc.Status != "cancelled" {
				continue // still running: the call waits for its result
			}
			when := parseTime(tc.Timestamp)
			if when.IsZero() {
				when = at
			}
			s.fillTool(s.put("r:"+tc.ID, m.ID, itemResult), tc.Name, tc.ID, "", rt, isErr || tc.Status == "error", when, n)
		}
	case "info", "warning", "error":
		if shown {
			s.fill(s.put("m:"+m.ID, m.ID, itemNotice), history.RoleSystem, text, at, n)
		}
	}
}

// fill sets a message's or notice's latest text. Its line is where that
// text was first written, and its time the first one recorded: the CLI
// writes a message again, whole, as it grows and on every resume, with a
// resume's time when it rebuilds the history.
func (s *state) fill(it *item, role history.Role, text string, at time.Time, n int) {
	it.role = role
	if text != "" && text != it.text {
		it.text, it.line = text, n
	}
	if it.line == 0 {
		it.line = n
	}
	if it.time.IsZero() {
		it.time = at
	}
}

// fillTool sets a tool use's or result's latest version, as fill does.
func (s *state) fillTool(it *item, name, callID, input, text string, isErr bool, at time.Time, n int) {
	it.role, it.callID = history.RoleTool, callID
	if name != "" {
		it.name = name
	}
	if input != "" && input != it.input {
		it.input, it.line = input, n
	}
	if text != "" && text != it.text {
		it.text, it.line = text, n
	}
	if it.line == 0 {
		it.line = n
	}
	it.isError = it.isError || isErr
	if it.time.IsZero() {
		it.time = at
	}
}

// window names window ordinal ord of the chat.
func (s *state) window(ord int) string {
	return Name + ":" + s.sessionID + ":" + strconv.Itoa(ord)
}

// finish emits the shown items in seq order and returns the summary.
func (s *state) finish(emit history.EmitFunc) (history.Summary, error) {
	sum := history.Summary{HeadWindow: s.window(s.ord), HeadKnown: true, HeadOrdinal: s.ord}
	for o := 0; o <= s.ord; o++ {
		sum.Windows = append(sum.Windows, s.window(o))
	}
	shown := func(it *item) bool { return it != nil && !s.abandoned[it.owner] }
	sort.Slice(s.order, func(i, j int) bool { return s.order[i].seq < s.order[j].seq })
	for _, it := range s.order {
		if !shown(it) {
			continue
		}
		e := history.Event{Seq: it.seq, Window: s.window(it.ord), Role: it.role, Text: it.text, Time: it.time, Line: it.line}
		switch it.kind {
		case itemMessage:
			e.Kind = history.KindMessage
		case itemNotice:
			e.Kind = history.KindNotice
		case itemUse, itemResult:
			e.Kind, e.ToolName, e.ToolID, e.IsError = history.KindToolUse, it.name, it.callID, it.isError
			other := s.items["r:"+it.callID]
			if it.kind == itemResult {
				e.Kind, other = history.KindToolResult, s.items["u:"+it.callID]
			} else {
				e.Text, e.ToolInput, e.IsError = "", it.input, false
			}
			if shown(other) {
				e.PairSeq = other.seq
			}
		}
		if err := emit(e); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// maxLegacyBytes bounds a whole-file JSON chat, which must be read whole:
// as large as the longest JSONL line the decoder takes.
const maxLegacyBytes = jsonl.MaxLineBytes

// decodeLegacy reads a whole-file JSON chat (session-*.json, before 0.39):
// one object with the metadata and the messages. Each event's line is the
// line where its message's id is written (the CLI pretty-printed these
// files).
func decodeLegacy(r io.ReaderAt, size int64, path string, emit history.EmitFunc) (history.Summary, error) {
	if size > maxLegacyBytes {
		return refusalSummary(refusal(path, 0, false, fmt.Sprintf("a whole-file JSON chat of %d bytes is over the %d MiB this decoder reads at once", size, maxLegacyBytes>>20)))
	}
	data := make([]byte, size)
	n, err := r.ReadAt(data, 0)
	if err != nil && err != io.EOF {
		return refusalSummary(readErr(path, err))
	}
	data = data[:n]
	if len(bytes.TrimSpace(data)) == 0 {
		return refusalSummary(refusal(path, 0, true, "the chat file is empty; retry"))
	}
	l, err := parseLine(data)
	if err != nil || l.kind != recMetadata {
		reason := "not a Gemini CLI chat: the object has no sessionId and projectHash"
		if err != nil {
			reason = "not a whole-file JSON chat (a write in progress?): " + err.Error()
		}
		return refusalSummary(refusal(path, 0, err != nil, reason))
	}
	st := newState(path)
	if err := st.begin(l.sessionID, 1); err != nil {
		return refusalSummary(err)
	}
	for _, m := range l.messages {
		line := 1
		if i := bytes.Index(data, []byte(strconv.Quote(m.ID))); i >= 0 {
			line += bytes.Count(data[:i], []byte{'\n'})
		}
		st.message(m, line)
	}
	return st.finish(emit)
}
