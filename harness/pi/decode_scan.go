package pi

import (
	"encoding/json"

	"github.com/notesoup/notesoup/harness/jsonscan"
)

// scan is the shared single-pass scanner (harness/jsonscan) with the Pi
// entry shapes on top.
type scan struct{ jsonscan.Scanner }

var (
	entryFields   = []string{"type", "id", "parentId", "timestamp", "message", "summary", "content"}
	messageFields = []string{"role", "content", "toolCallId", "toolName", "command", "output", "isError", "errorMessage"}
	blockFields   = []string{"type", "text", "id", "name", "arguments"}
)

// scanEntry decodes a line into fastEntry as json.Unmarshal would, or
// reports ok=false. withText=false leaves strings the indexing pass does
// not read (text, summaries, arguments) as placeholders.
func scanEntry(line []byte, withText bool) (fastEntry, bool) {
	return scanEntryOf(line, withText, false)
}

// scanEntryOf is scanEntry over a line that may be trusted
// (jsonscan.Scanner.Trusted).
func scanEntryOf(line []byte, withText, trusted bool) (fastEntry, bool) {
	var e fastEntry
	s := &scan{Scanner: jsonscan.Scanner{B: line, Trusted: trusted}}
	s.WS()
	var m jsonscan.Seen
	ok := s.ObjectOf(entryFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "type":
			return m.First(0) && s.ReqText(&e.Type), true
		case "id":
			return m.First(1) && s.OptText(&e.ID, true), true
		case "parentId":
			return m.First(2) && s.OptText(&e.ParentID, true), true
		case "timestamp":
			return m.First(3) && s.OptText(&e.Timestamp, withText), true
		case "message":
			if !m.First(4) {
				return false, true
			}
			if s.Null() {
				return true, true
			}
			e.Message = &fastMessage{}
			return s.message(e.Message, withText), true
		case "summary":
			return m.First(5) && s.OptText(&e.Summary, withText), true
		case "content":
			return m.First(6) && s.blocks(&e.Content, withText), true
		}
		return s.Skip(), false
	})
	if !ok {
		return fastEntry{}, false
	}
	s.WS()
	if s.I != len(line) {
		return fastEntry{}, false
	}
	return e, true
}

func (s *scan) message(msg *fastMessage, withText bool) bool {
	var m jsonscan.Seen
	return s.ObjectOf(messageFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "role":
			return m.First(0) && s.ReqText(&msg.Role), true
		case "content":
			return m.First(1) && s.blocks(&msg.Content, withText), true
		case "toolCallId":
			return m.First(2) && s.OptText(&msg.ToolCallID, true), true
		case "toolName":
			return m.First(3) && s.OptText(&msg.ToolName, true), true
		case "command":
			return m.First(4) && s.OptText(&msg.Command, withText), true
		case "output":
			return m.First(5) && s.OptText(&msg.Output, withText), true
		case "isError":
			if !m.First(6) {
				return false, true
			}
			switch {
			case s.Null():
				return true, true
			case s.Lit("true"):
				msg.IsError = true
				return true, true
			case s.Lit("false"):
				msg.IsError = false
				return true, true
			}
			return false, true
		case "errorMessage":
			return m.First(7) && s.OptText(&msg.ErrorMsg, withText), true
		}
		return s.Skip(), false
	})
}

// blocks reads a content array of block objects (null: no blocks; a
// string or a null element: give up, as the fast path always did).
func (s *scan) blocks(dst *[]rawBlock, withText bool) bool {
	if s.Null() {
		*dst = nil
		return true
	}
	out := (*dst)[:0]
	if out == nil {
		out = []rawBlock{} // [] decodes to an empty, non-nil slice
	}
	ok := s.Array(func() bool {
		var b rawBlock
		var m jsonscan.Seen
		ok := s.ObjectOf(blockFields, func(key []byte) (bool, bool) {
			switch string(key) {
			case "type":
				return m.First(0) && s.ReqText(&b.Type), true
			case "text":
				return m.First(1) && s.OptText(&b.Text, withText), true
			case "id":
				return m.First(2) && s.OptText(&b.ID, true), true
			case "name":
				return m.First(3) && s.OptText(&b.Name, true), true
			case "arguments":
				if !m.First(4) {
					return false, true
				}
				at := s.I
				if !s.Skip() {
					return false, true
				}
				if withText {
					b.Arguments = append([]byte(nil), s.B[at:s.I]...)
				} else {
					b.Arguments = json.RawMessage("null")
				}
				return true, true
			}
			return s.Skip(), false
		})
		out = append(out, b)
		return ok
	})
	*dst = out
	return ok
}
