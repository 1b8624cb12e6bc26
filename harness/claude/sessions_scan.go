package claude

import (
	"encoding/json"

	"github.com/notesoup/notesoup/harness/jsonscan"
)

// Session listing reads up to 320 KiB of every transcript (its head and
// tail) for a handful of top-level fields. encoding/json validates and
// walks every byte of every line, tool outputs included, which made listing
// a thousand sessions cost seconds. scanInfo takes the same fields in one
// validating pass that skips string bodies quickly, and keeps no text it
// does not need; anything it cannot take exactly as encoding/json would (a
// duplicate key, a key differing only in case, a wrong type) it gives back,
// and the caller decodes that line with encoding/json as before.

// infoFields are infoRecord's JSON names, for the case-folding check of
// unknown keys (encoding/json matches names case-insensitively).
var infoFields = []string{"type", "cwd", "timestamp", "isMeta", "isSidechain", "customTitle", "aiTitle", "message", "isCompactSummary"}

// messageFields are the JSON names of infoRecord.Message.
var messageFields = []string{"content"}

// decodeInfo fills rec from one transcript line exactly as json.Unmarshal
// would, reporting whether the line decoded without error.
func decodeInfo(line []byte, rec *infoRecord) bool {
	if ok, done := scanInfo(line, rec); done {
		return ok
	}
	*rec = infoRecord{}
	return json.Unmarshal(line, rec) == nil
}

// scanInfo is the fast path of decodeInfo. done=false means it gave up and
// the line must take the encoding/json path.
func scanInfo(line []byte, rec *infoRecord) (ok, done bool) {
	s := jsonscan.Scanner{B: line}
	s.WS()
	var seen jsonscan.Seen
	walked := s.ObjectOf(infoFields, func(key []byte) (bool, bool) {
		switch string(key) {
		case "type":
			return seen.First(0) && s.ReqText(&rec.Type), true
		case "cwd":
			return seen.First(1) && s.ReqText(&rec.Cwd), true
		case "timestamp":
			return seen.First(2) && s.ReqText(&rec.Timestamp), true
		case "isMeta":
			return seen.First(3) && scanBool(&s, &rec.IsMeta), true
		case "isSidechain":
			return seen.First(4) && scanBool(&s, &rec.IsSidechain), true
		case "customTitle":
			return seen.First(5) && s.ReqText(&rec.CustomTitle), true
		case "aiTitle":
			return seen.First(6) && s.ReqText(&rec.AITitle), true
		case "message":
			return seen.First(7) && scanInfoMessage(&s, rec), true
		case "isCompactSummary":
			return seen.First(8) && scanBool(&s, &rec.IsCompactSummary), true
		}
		return s.Skip(), false
	})
	if !walked {
		return false, false
	}
	s.WS()
	if s.I != len(s.B) {
		return false, false
	}
	return true, true
}

// scanBool reads a bool field: null leaves it unchanged, as encoding/json does.
func scanBool(s *jsonscan.Scanner, dst *bool) bool {
	switch {
	case s.Null():
		return true
	case s.I < len(s.B) && s.B[s.I] == 't':
		*dst = true
		return s.Lit("true")
	case s.I < len(s.B) && s.B[s.I] == 'f':
		*dst = false
		return s.Lit("false")
	}
	return false
}

// scanInfoMessage reads the message object. The content's raw bytes are
// kept as a slice of the line, not copied: a tool result array can be
// large, and SessionInfo looks at a content (a string, or the blocks of a
// prompt sent with an image) only while the line is current, and only
// until it has a prompt.
func scanInfoMessage(s *jsonscan.Scanner, rec *infoRecord) bool {
	if s.Null() {
		rec.Message = nil
		return true
	}
	if rec.Message == nil {
		rec.Message = &struct {
			Content json.RawMessage `json:"content"`
		}{}
	}
	var seen jsonscan.Seen
	return s.ObjectOf(messageFields, func(key []byte) (bool, bool) {
		if string(key) != "content" {
			return s.Skip(), false
		}
		if !seen.First(0) {
			return false, true
		}
		start := s.I
		if !s.Skip() {
			return false, true
		}
		rec.Message.Content = json.RawMessage(s.B[start:s.I:s.I])
		return true, true
	})
}
