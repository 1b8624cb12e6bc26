package copilot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/history"
)

// Decoder decodes Copilot CLI events.jsonl files. The zero value is ready
// to use and safe for concurrent use.
type Decoder struct{}

var _ history.Decoder = Decoder{}

// Decode reads the session at sess.Path and emits its events in seq order.
//
// The CLI only appends to events.jsonl, so addresses are allocated line by
// line, in the order things are first recorded: a user message, an
// assistant message's text, each tool call it makes and each call's
// result. What a later line adds never moves an earlier address.
//
// A successful session.compaction_complete opens the next window, whose
// first event is the compaction's summary as a notice; a
// session.context_cleared opens the next window too. A
// session.snapshot_rewind withdraws events: what they showed is not shown
// (its addresses are not reused). A sub-agent's events (agentId, or the
// deprecated parentToolCallId) are not shown: the task call's result in the
// main conversation is what the sub-agent gave back. Reasoning, the system
// prompt, usage and every event type not listed in the package doc are
// never shown.
func (Decoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	f, fi, err := rawread.Open(sess.Path)
	if err != nil {
		return history.Summary{}, fmt.Errorf("copilot history: open session file: %w", err)
	}
	defer f.Close()
	return decode(f, fi.Size(), sess.Path, emit)
}

// refusal is the decoder's one error: a session it cannot decode
// faithfully, naming the file and the 1-based line (0 for the whole file).
// retry is true when a write in progress may explain it.
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
	return fmt.Errorf("copilot history: read %s: %w", path, err)
}

// tooLong reports whether err is a line over the bound. It allocates only
// for an error: the target errors.As needs escapes to the heap.
func tooLong(err error) (*jsonl.LineTooLongError, bool) {
	if err == nil {
		return nil, false
	}
	var long *jsonl.LineTooLongError
	return long, errors.As(err, &long)
}

// decode reads an events.jsonl of size bytes from r in one pass, then
// emits.
func decode(r io.ReaderAt, size int64, path string, emit history.EmitFunc) (history.Summary, error) {
	f := jsonl.NewFile(r, size)
	defer f.Release()
	lr := f.Lines(size)
	st := newState(path)
	records := 0
	for {
		b, terminated, err := lr.Next()
		if err == io.EOF {
			break
		}
		if long, ok := tooLong(err); ok {
			if !long.Terminated {
				break // still being written
			}
			// One record too large to read: its address is kept by a
			// notice and the rest of the session stays readable.
			st.pos++
			st.add("", itemNotice, history.RoleSystem, skippedText, time.Time{}, long.Line)
			records++
			continue
		}
		if err != nil {
			return refusalSummary(readErr(path, err))
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		rec, err := parseRecord(b)
		if err == nil {
			err = st.apply(rec, lr.Line)
		}
		if err != nil {
			if !terminated {
				break // a torn last line: a write in progress, not yet history
			}
			return refusalSummary(refusal(path, lr.Line, false, err.Error()))
		}
		records++
	}
	if records == 0 {
		return refusalSummary(refusal(path, 0, true, "the session file holds no complete event yet: the Copilot CLI writes session.start when the session starts; retry"))
	}
	if err := st.resolveID(); err != nil {
		return refusalSummary(err)
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

// item is one address.
type item struct {
	seq       int64
	ord       int
	pos       int // the index of the event it came from, in file order
	owner     string
	kind      itemKind
	role      history.Role
	text      string
	name      string
	callID    string
	input     string
	isError   bool
	time      time.Time
	line      int
	pair      *item // a call's result, a result's call
	abandoned bool
}

// state is what a pass over a session learns.
type state struct {
	path      string
	sessionID string
	ord       int
	items     []*item          // in seq order
	uses      map[string]*item // the latest call of each tool call id
	events    map[string]int   // event id -> its index in file order
	owned     map[string][]*item
	pos       int
}

func newState(path string) *state {
	return &state{path: path, uses: map[string]*item{}, events: map[string]int{}, owned: map[string][]*item{}}
}

// apply takes one event into the state; an error is a damaged event.
func (s *state) apply(r record, n int) error {
	s.pos++
	if r.ID != "" {
		if _, dup := s.events[r.ID]; !dup {
			s.events[r.ID] = s.pos
		}
	}
	at := parseTime(r.Timestamp)
	switch r.Type {
	case evStart:
		var d startData
		if err := r.data(&d); err != nil {
			return err
		}
		if s.sessionID == "" {
			s.sessionID = d.SessionID
		}
		return nil
	case evUser, evAssistant, evToolStart, evToolComplete:
		return s.conversation(r, at, n)
	case evCompactionComplete:
		var d compactionData
		if err := r.data(&d); err != nil || !d.Success {
			return err // a failed or cancelled compaction changed nothing
		}
		s.ord++
		if strings.TrimSpace(d.SummaryContent) != "" {
			s.add(r.ID, itemNotice, history.RoleSystem, d.SummaryContent, at, n)
		}
	case evContextCleared:
		s.ord++
	case evRewind:
		var d rewindData
		if err := r.data(&d); err != nil {
			return err
		}
		s.rewind(d)
	case evError, evWarning:
		var d messageData
		if err := r.data(&d); err != nil {
			return err
		}
		if r.AgentID == "" && strings.TrimSpace(d.Message) != "" {
			s.add(r.ID, itemNotice, history.RoleSystem, d.Message, at, n)
		}
	}
	return nil
}

// conversation takes a message or a tool event of the main agent.
func (s *state) conversation(r record, at time.Time, n int) error {
	switch r.Type {
	case evUser:
		var d userData
		if err := r.data(&d); err != nil {
			return err
		}
		if r.AgentID == "" && strings.TrimSpace(d.Content) != "" {
			s.add(r.ID, itemMessage, history.RoleUser, d.Content, at, n)
		}
	case evAssistant:
		var d assistantData
		if err := r.data(&d); err != nil {
			return err
		}
		if r.AgentID != "" || d.ParentToolCallID != "" {
			return nil
		}
		if strings.TrimSpace(d.Content) != "" {
			s.add(r.ID, itemMessage, history.RoleAssistant, d.Content, at, n)
		}
		for _, tr := range d.ToolRequests {
			s.call(r.ID, tr.ToolCallID, tr.Name, compactJSON(tr.Arguments), at, n)
		}
	case evToolStart:
		var d toolStartData
		if err := r.data(&d); err != nil {
			return err
		}
		if r.AgentID != "" || d.ParentToolCallID != "" || d.ToolCallID == "" {
			return nil
		}
		// A call the model's message did not carry (one the user asked
		// for) gets its address here.
		if u := s.uses[d.ToolCallID]; u == nil || u.pair != nil {
			s.call(r.ID, d.ToolCallID, d.ToolName, compactJSON(d.Arguments), at, n)
		}
	case evToolComplete:
		var d toolCompleteData
		if err := r.data(&d); err != nil {
			return err
		}
		if r.AgentID != "" || d.ParentToolCallID != "" || d.ToolCallID == "" {
			return nil
		}
		s.result(r.ID, d, at, n)
	}
	return nil
}

// add allocates the next address.
func (s *state) add(owner string, kind itemKind, role history.Role, text string, at time.Time, n int) *item {
	it := &item{seq: int64(len(s.items) + 1), ord: s.ord, pos: s.pos, owner: owner, kind: kind, role: role, text: text, time: at, line: n}
	s.items = append(s.items, it)
	if owner != "" {
		s.owned[owner] = append(s.owned[owner], it)
	}
	return it
}

// call records a tool call. A call id seen before whose call already has
// its result starts a new call: the id was reused.
func (s *state) call(owner, callID, name, input string, at time.Time, n int) {
	if callID == "" {
		return
	}
	if u := s.uses[callID]; u != nil && u.pair == nil {
		return // recorded already (the message's request, then its start)
	}
	u := s.add(owner, itemUse, history.RoleTool, "", at, n)
	u.name, u.callID, u.input = name, callID, input
	s.uses[callID] = u
}

// result records a call's result, paired with the latest call of its id.
func (s *state) result(owner string, d toolCompleteData, at time.Time, n int) {
	text := ""
	if d.Result != nil {
		text = d.Result.Content
		if text == "" {
			text = d.Result.DetailedContent
		}
	}
	if d.Error != nil && d.Error.Message != "" {
		if text != "" {
			text += "\n"
		}
		text += d.Error.Message
	}
	u := s.uses[d.ToolCallID]
	if u != nil && u.pair != nil {
		u.pair.text, u.pair.isError = text, !d.Success // completed again: the latest word
		return
	}
	res := s.add(owner, itemResult, history.RoleTool, text, at, n)
	res.callID, res.isError = d.ToolCallID, !d.Success
	if u != nil {
		res.name, res.pair, u.pair = u.name, u, res
	}
}

// rewind withdraws the events a session.snapshot_rewind names.
func (s *state) rewind(d rewindData) {
	if len(d.EventIDs) > 0 {
		for _, id := range d.EventIDs {
			for _, it := range s.owned[id] {
				it.abandoned = true
			}
		}
		return
	}
	from, ok := s.events[d.UpToEventID]
	if !ok {
		return // an event this file never held: nothing it names is shown
	}
	for _, it := range s.items {
		if it.pos >= from {
			it.abandoned = true
		}
	}
}

// resolveID settles the id windows are named for: session.start's
// sessionId, else the session folder's name. It must be one a window id can
// carry.
func (s *state) resolveID() error {
	if s.sessionID == "" {
		s.sessionID = filepath.Base(filepath.Dir(s.path))
	}
	if !validID(s.sessionID) {
		return refusal(s.path, 0, false, fmt.Sprintf("session id %q cannot name a window (empty, too long, or holding ':', a space or a control character)", clip(s.sessionID)))
	}
	return nil
}

// validID reports whether id can name a window.
func validID(id string) bool {
	return id != "" && id != "." && len(id) <= 256 &&
		strings.IndexFunc(id, func(r rune) bool { return r == ':' || r == '/' || r <= ' ' || r == 0x7f }) < 0
}

// window names window ordinal ord of the session.
func (s *state) window(ord int) string {
	return Name + ":" + s.sessionID + ":" + strconv.Itoa(ord)
}

// finish emits the items shown, in seq order, and returns the summary.
func (s *state) finish(emit history.EmitFunc) (history.Summary, error) {
	sum := history.Summary{HeadWindow: s.window(s.ord), HeadKnown: true, HeadOrdinal: s.ord}
	for o := 0; o <= s.ord; o++ {
		sum.Windows = append(sum.Windows, s.window(o))
	}
	for _, it := range s.items {
		if it.abandoned {
			continue
		}
		e := history.Event{Seq: it.seq, Window: s.window(it.ord), Role: it.role, Text: it.text, Time: it.time, Line: it.line}
		switch it.kind {
		case itemMessage:
			e.Kind = history.KindMessage
		case itemNotice:
			e.Kind = history.KindNotice
		case itemUse:
			e.Kind, e.ToolName, e.ToolID, e.ToolInput = history.KindToolUse, it.name, it.callID, it.input
		case itemResult:
			e.Kind, e.ToolName, e.ToolID, e.IsError = history.KindToolResult, it.name, it.callID, it.isError
		}
		if it.pair != nil && !it.pair.abandoned {
			e.PairSeq = it.pair.seq
		}
		if err := emit(e); err != nil {
			return sum, err
		}
	}
	return sum, nil
}
