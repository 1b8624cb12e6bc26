package codex

import (
	"encoding/json"
	"strconv"
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
	var l fastLine
	s := &scan{b: line}
	s.ws()
	var m seen
	ok := s.objectOf(lineFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "timestamp":
			return m.first(0) && s.optText(&l.Timestamp, true), true
		case "ordinal":
			if !m.first(1) {
				return false, true
			}
			if s.null() {
				l.Ordinal = nil
				return true, true
			}
			v, ok := s.int64()
			l.Ordinal = &v
			return ok, true
		case "type":
			return m.first(2) && s.optText(&l.Type, true), true
		case "payload":
			if !m.first(3) {
				return false, true
			}
			if s.null() {
				return true, true
			}
			l.Payload = &fastPayload{}
			return s.payload(l.Payload, withText), true
		case "metadata":
			if !m.first(4) {
				return false, true
			}
			if s.null() {
				return true, true
			}
			l.Metadata = &lineMetadata{}
			var mm seen
			return s.objectOf(metadataFields, func(key []byte) (bool, bool) {
				if string(key) == "compaction_output" {
					return mm.first(0) && s.boolean(&l.Metadata.CompactionOutput), true
				}
				return s.skip(), false
			}), true
		}
		return s.skip(), false
	})
	if !ok {
		return fastLine{}, false
	}
	s.ws()
	if s.i != len(line) {
		return fastLine{}, false
	}
	return l, true
}

// int64 reads an integer as encoding/json does into an int64: no fraction
// or exponent, in range.
func (s *scan) int64() (int64, bool) {
	at := s.i
	if !s.number() {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s.b[at:s.i]), 10, 64)
	return v, err == nil
}

// boolean reads true, false or null (a no-op).
func (s *scan) boolean(dst *bool) bool {
	switch {
	case s.null():
		return true
	case s.lit("true"):
		*dst = true
		return true
	case s.lit("false"):
		*dst = false
		return true
	}
	return false
}

// raw copies any value's bytes, as json.RawMessage does.
func (s *scan) raw(dst *json.RawMessage, want bool) bool {
	at := s.i
	if !s.skip() {
		return false
	}
	if want {
		*dst = append(json.RawMessage(nil), s.b[at:s.i]...)
	} else {
		*dst = json.RawMessage("null")
	}
	return true
}

func (s *scan) payload(p *fastPayload, withText bool) bool {
	var m seen
	return s.objectOf(payloadFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "type":
			return m.first(0) && s.reqText(&p.Type), true
		case "role":
			return m.first(1) && s.reqText(&p.Role), true
		case "content":
			return m.first(2) && s.contentItems(&p.Content), true
		case "call_id":
			return m.first(3) && s.optText(&p.CallID, true), true
		case "id":
			return m.first(4) && s.optText(&p.ID, true), true
		case "name":
			return m.first(5) && s.optText(&p.Name, true), true
		case "namespace":
			return m.first(6) && s.optText(&p.Namespace, true), true
		case "arguments":
			return m.first(7) && s.raw(&p.Arguments, withText), true
		case "input":
			return m.first(8) && s.optText(&p.Input, withText), true
		case "action":
			return m.first(9) && s.raw(&p.Action, true), true
		case "output":
			if !m.first(10) {
				return false, true
			}
			if s.null() {
				p.Output = nil
				return true, true
			}
			if !withText {
				// Only the type matters to the indexing pass.
				if _, _, ok := s.str(); !ok {
					return false, true
				}
				p.Output = ""
				return true, true
			}
			v, ok := s.text() // not a string: encoding/json builds it
			p.Output = v
			return ok, true
		case "message":
			return m.first(11) && s.optText(&p.Message, true), true
		case "item":
			if !m.first(12) {
				return false, true
			}
			if s.null() {
				return true, true
			}
			p.Item = &completedItem{}
			return s.completed(p.Item), true
		case "error":
			if !m.first(13) {
				return false, true
			}
			if s.null() {
				return true, true
			}
			p.Error = &turnError{}
			var mm seen
			return s.objectOf(turnErrorFields, func(key []byte) (bool, bool) {
				if string(key) == "message" {
					return mm.first(0) && s.optText(&p.Error.Message, true), true
				}
				return s.skip(), false
			}), true
		}
		return s.skip(), false
	})
}

func (s *scan) contentItems(dst *[]contentItem) bool {
	if s.null() {
		*dst = nil
		return true
	}
	out := []contentItem{}
	ok := s.array(func() bool {
		var it contentItem
		var m seen
		ok := s.objectOf(contentFields, func(key []byte) (bool, bool) {
			switch string(key) {
			case "type":
				return m.first(0) && s.reqText(&it.Type), true
			case "text":
				return m.first(1) && s.optText(&it.Text, true), true
			}
			return s.skip(), false
		})
		out = append(out, it)
		return ok
	})
	*dst = out
	return ok
}

func (s *scan) completed(it *completedItem) bool {
	var m seen
	return s.objectOf(itemFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "type":
			return m.first(0) && s.reqText(&it.Type), true
		case "id":
			return m.first(1) && s.optText(&it.ID, true), true
		case "status":
			return m.first(2) && s.optText(&it.Status, true), true
		case "result":
			if !m.first(3) {
				return false, true
			}
			if s.null() {
				return true, true
			}
			it.Result = &struct {
				IsError bool `json:"isError"`
			}{}
			var mm seen
			return s.objectOf(resultFields, func(key []byte) (bool, bool) {
				if string(key) == "isError" {
					return mm.first(0) && s.boolean(&it.Result.IsError), true
				}
				return s.skip(), false
			}), true
		}
		return s.skip(), false
	})
}
