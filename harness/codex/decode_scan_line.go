package codex

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/notesoup/notesoup/harness/jsonscan"
)

// Field names of the structs scanLine fills, for the case-folding check.
var (
	lineFields      = []string{"timestamp", "ordinal", "type", "payload", "metadata"}
	payloadFields   = []string{"type", "role", "content", "call_id", "id", "name", "namespace", "arguments", "input", "action", "output", "message", "item", "error"}
	contentFields   = []string{"type", "text"}
	metadataFields  = []string{"compaction_output"}
	itemFields      = []string{"type", "id", "status", "result"}
	resultFields    = []string{"isError"}
	turnErrorFields = []string{"message"}
)

// scanLine decodes a rollout line into fastLine as json.Unmarshal would, or
// reports ok=false (then encoding/json decides). A payload output that is
// not a string or null (MCP content arrays, objects) is left to encoding/json
// too. withText=false leaves the strings the indexing pass does not read
// (arguments, inputs, outputs) as placeholders.
func scanLine(line []byte, withText bool) (fastLine, bool) {
	return scanLineItems(line, withText, false)
}

// scanLineItems is scanLine that, with items, also takes an output array of
// content items, storing in Payload.Output the string anyOutputText makes
// of it (so the result no longer mirrors json.Unmarshal field for field,
// but parseRecordFast reads the same record from it).
func scanLineItems(line []byte, withText, items bool) (fastLine, bool) {
	return scanLineOf(line, withText, items, false)
}

// scanLineOf is scanLineItems over a line that may be trusted
// (jsonscan.Scanner.Trusted).
func scanLineOf(line []byte, withText, items, trusted bool) (fastLine, bool) {
	var l fastLine
	s := &scan{Scanner: jsonscan.Scanner{B: line, Trusted: trusted}, items: items}
	s.WS()
	var m jsonscan.Seen
	ok := s.ObjectOf(lineFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "timestamp":
			return m.First(0) && s.OptText(&l.Timestamp, true), true
		case "ordinal":
			if !m.First(1) {
				return false, true
			}
			if s.Null() {
				l.Ordinal = nil
				return true, true
			}
			v, ok := s.int64()
			l.Ordinal = &v
			return ok, true
		case "type":
			return m.First(2) && s.OptText(&l.Type, true), true
		case "payload":
			if !m.First(3) {
				return false, true
			}
			if s.Null() {
				return true, true
			}
			l.Payload = &fastPayload{}
			return s.payload(l.Payload, withText), true
		case "metadata":
			if !m.First(4) {
				return false, true
			}
			if s.Null() {
				return true, true
			}
			l.Metadata = &lineMetadata{}
			var mm jsonscan.Seen
			return s.ObjectOf(metadataFields, func(key []byte) (bool, bool) {
				if string(key) == "compaction_output" {
					return mm.First(0) && s.boolean(&l.Metadata.CompactionOutput), true
				}
				return s.Skip(), false
			}), true
		}
		return s.Skip(), false
	})
	if !ok {
		return fastLine{}, false
	}
	s.WS()
	if s.I != len(line) {
		return fastLine{}, false
	}
	return l, true
}

// Field names of session_meta lines, for the case-folding check.
var (
	metaFields        = []string{"id", "session_id", "timestamp", "cwd", "forked_from_id", "history_base"}
	historyBaseFields = []string{"thread_id", "end_ordinal_exclusive", "end_byte_offset"}
)

// scanMetaLine decodes a session_meta line as parseRecordGeneral does
// (json.Unmarshal into envelope, then its payload into sessionMeta), or
// reports ok=false for anything it cannot take exactly, which the general
// path then decides.
func scanMetaLine(line []byte, trusted bool) (record, bool) {
	r := record{ordinal: -1, boot: -1}
	s := &scan{Scanner: jsonscan.Scanner{B: line, Trusted: trusted}}
	s.WS()
	var typ, ts *string
	var m *sessionMeta
	var seen jsonscan.Seen
	ok := s.ObjectOf(lineFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "timestamp":
			return seen.First(0) && s.OptText(&ts, true), true
		case "ordinal":
			if !seen.First(1) {
				return false, true
			}
			if s.Null() {
				r.ordinal = -1
				return true, true
			}
			v, ok := s.int64()
			r.ordinal = v
			return ok, true
		case "type":
			return seen.First(2) && s.OptText(&typ, true), true
		case "payload":
			if !seen.First(3) {
				return false, true
			}
			m = &sessionMeta{}
			if s.Null() {
				return true, true
			}
			return s.sessionMeta(m), true
		case "metadata":
			return seen.First(4) && s.Skip(), true
		}
		return s.Skip(), false
	})
	if !ok || typ == nil || *typ != "session_meta" || m == nil {
		return record{}, false
	}
	if s.WS(); s.I != len(line) {
		return record{}, false
	}
	if ts != nil {
		r.time, _ = time.Parse(time.RFC3339Nano, *ts)
	}
	r.kind, r.meta = recSessionMeta, m
	return r, true
}

// sessionMeta reads a session_meta payload object into m.
func (s *scan) sessionMeta(m *sessionMeta) bool {
	var seen jsonscan.Seen
	return s.ObjectOf(metaFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "id":
			return seen.First(0) && s.ReqText(&m.ID), true
		case "session_id":
			return seen.First(1) && s.ReqText(&m.SessionID), true
		case "timestamp":
			return seen.First(2) && s.ReqText(&m.Timestamp), true
		case "cwd":
			return seen.First(3) && s.ReqText(&m.Cwd), true
		case "forked_from_id":
			return seen.First(4) && s.ReqText(&m.ForkedFromID), true
		case "history_base":
			if !seen.First(5) {
				return false, true
			}
			if s.Null() {
				m.HistoryBase = nil
				return true, true
			}
			hb := &historyBase{}
			m.HistoryBase = hb
			var hs jsonscan.Seen
			return s.ObjectOf(historyBaseFields, func(key []byte) (bool, bool) {
				switch string(key) {
				case "thread_id":
					return hs.First(0) && s.ReqText(&hb.ThreadID), true
				case "end_ordinal_exclusive":
					return hs.First(1) && s.optInt64(&hb.EndOrdinalExclusive), true
				case "end_byte_offset":
					return hs.First(2) && s.optInt64(&hb.EndByteOffset), true
				}
				return s.Skip(), false
			}), true
		}
		return s.Skip(), false
	})
}

// optInt64 reads a *int64 field: null leaves it nil.
func (s *scan) optInt64(dst **int64) bool {
	if s.Null() {
		*dst = nil
		return true
	}
	v, ok := s.int64()
	*dst = &v
	return ok
}

// int64 reads an integer as encoding/json does into an int64: no fraction
// or exponent, in range.
func (s *scan) int64() (int64, bool) {
	at := s.I
	if !s.Number() {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s.B[at:s.I]), 10, 64)
	return v, err == nil
}

// boolean reads true, false or null (a no-op).
func (s *scan) boolean(dst *bool) bool {
	switch {
	case s.Null():
		return true
	case s.Lit("true"):
		*dst = true
		return true
	case s.Lit("false"):
		*dst = false
		return true
	}
	return false
}

// raw copies any value's bytes, as json.RawMessage does.
func (s *scan) raw(dst *json.RawMessage, want bool) bool {
	at := s.I
	if !s.Skip() {
		return false
	}
	if want {
		*dst = append(json.RawMessage(nil), s.B[at:s.I]...)
	} else {
		*dst = json.RawMessage("null")
	}
	return true
}

func (s *scan) payload(p *fastPayload, withText bool) bool {
	var m jsonscan.Seen
	return s.ObjectOf(payloadFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "type":
			return m.First(0) && s.ReqText(&p.Type), true
		case "role":
			return m.First(1) && s.ReqText(&p.Role), true
		case "content":
			return m.First(2) && s.contentItems(&p.Content), true
		case "call_id":
			return m.First(3) && s.OptText(&p.CallID, true), true
		case "id":
			return m.First(4) && s.OptText(&p.ID, true), true
		case "name":
			return m.First(5) && s.OptText(&p.Name, true), true
		case "namespace":
			return m.First(6) && s.OptText(&p.Namespace, true), true
		case "arguments":
			return m.First(7) && s.raw(&p.Arguments, withText), true
		case "input":
			return m.First(8) && s.OptText(&p.Input, withText), true
		case "action":
			return m.First(9) && s.raw(&p.Action, true), true
		case "output":
			if !m.First(10) {
				return false, true
			}
			if s.Null() {
				p.Output = nil
				return true, true
			}
			if s.items && s.I < len(s.B) && s.B[s.I] == '[' {
				// Content items (MCP tools): their joined text, as
				// anyItemsText would make it, is what the output says.
				text, ok := s.outputItems(withText)
				p.Output = text
				return ok, true
			}
			if !withText {
				// Only the type matters to the indexing pass.
				if _, _, ok := s.Str(); !ok {
					return false, true
				}
				p.Output = ""
				return true, true
			}
			v, ok := s.Text() // not a string: encoding/json builds it
			p.Output = v
			return ok, true
		case "message":
			return m.First(11) && s.OptText(&p.Message, true), true
		case "item":
			if !m.First(12) {
				return false, true
			}
			if s.Null() {
				return true, true
			}
			p.Item = &completedItem{}
			return s.completed(p.Item), true
		case "error":
			if !m.First(13) {
				return false, true
			}
			if s.Null() {
				return true, true
			}
			p.Error = &turnError{}
			var mm jsonscan.Seen
			return s.ObjectOf(turnErrorFields, func(key []byte) (bool, bool) {
				if string(key) == "message" {
					return mm.First(0) && s.OptText(&p.Error.Message, true), true
				}
				return s.Skip(), false
			}), true
		}
		return s.Skip(), false
	})
}

func (s *scan) contentItems(dst *[]contentItem) bool {
	if s.Null() {
		*dst = nil
		return true
	}
	out := []contentItem{}
	ok := s.Array(func() bool {
		var it contentItem
		var m jsonscan.Seen
		ok := s.ObjectOf(contentFields, func(key []byte) (bool, bool) {
			switch string(key) {
			case "type":
				return m.First(0) && s.ReqText(&it.Type), true
			case "text":
				return m.First(1) && s.OptText(&it.Text, true), true
			}
			return s.Skip(), false
		})
		out = append(out, it)
		return ok
	})
	*dst = out
	return ok
}

// outputItems reads an output array of content items exactly as
// encoding/json into []any followed by anyItemsText would, or gives up
// (ok=false, and encoding/json decides): an element that is not an object,
// a duplicate "type" or "text" (a map keeps the last), a type that is
// neither a string nor null, a text item whose text is not a string.
// withText=false checks the shape only and returns "".
func (s *scan) outputItems(withText bool) (string, bool) {
	var j joined // as anyItemsText joins them
	ok := s.Array(func() bool {
		var typ string
		typOther := false // a type that is neither a string nor null
		var text []byte   // the raw text string, quotes included
		var m jsonscan.Seen
		ok := s.ObjectOf(contentFields, func(key []byte) (bool, bool) {
			switch string(key) {
			case "type":
				switch {
				case !m.First(0):
					return false, true
				case s.Null():
					return true, true
				case s.I < len(s.B) && s.B[s.I] == '"':
					v, ok := s.Text()
					typ = v
					return ok, true
				}
				typOther = true
				return s.Skip(), true
			case "text":
				if !m.First(1) {
					return false, true
				}
				at := s.I
				if s.I < len(s.B) && s.B[s.I] == '"' {
					_, _, ok := s.Str()
					text = s.B[at:s.I]
					return ok, true
				}
				return s.Skip(), true
			}
			return s.Skip(), false
		})
		switch {
		case !ok || typOther:
			return false
		case !isTextItem(typ):
			return true
		case text == nil:
			return false
		}
		if withText {
			t, _ := (&jsonscan.Scanner{B: text, Trusted: s.Trusted}).Text()
			j.add(t)
		}
		return true
	})
	return j.String(), ok
}

func (s *scan) completed(it *completedItem) bool {
	var m jsonscan.Seen
	return s.ObjectOf(itemFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "type":
			return m.First(0) && s.ReqText(&it.Type), true
		case "id":
			return m.First(1) && s.OptText(&it.ID, true), true
		case "status":
			return m.First(2) && s.OptText(&it.Status, true), true
		case "result":
			if !m.First(3) {
				return false, true
			}
			if s.Null() {
				return true, true
			}
			it.Result = &struct {
				IsError bool `json:"isError"`
			}{}
			var mm jsonscan.Seen
			return s.ObjectOf(resultFields, func(key []byte) (bool, bool) {
				if string(key) == "isError" {
					return mm.First(0) && s.boolean(&it.Result.IsError), true
				}
				return s.Skip(), false
			}), true
		}
		return s.Skip(), false
	})
}
