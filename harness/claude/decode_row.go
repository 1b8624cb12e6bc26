package claude

import (
	"fmt"
	"strings"

	"github.com/notesoup/notesoup/harness/jsonscan"
)

// The second pass over a transcript read once (jsonl.File.Stable) reads
// bytes the first pass validated. members and elements find each value's
// end before handing it over, so a tool output nested four deep was
// scanned four times before it was decoded; parseRowTrusted reads a row in
// one pass with the shared scanner (jsonscan.Scanner.Trusted), decoding the
// message content where it stands. It reads exactly what parseFull and
// contentText read: members in order, the last of a duplicate winning, a
// key with escapes matching nothing, a mistyped string field read as "".

// decodedContent is contentText's result, decoded in the row's pass.
type decodedContent struct {
	text   string
	blocks []fullBlock
	err    error
}

// parseRowTrusted reads a validated row into fr, with its message content
// decoded into msg (hasMsg false when the row has none, which contentText
// reads as no text). ok is false if the scanner could not take the row, and
// the caller reads it the general way.
func parseRowTrusted(line []byte, fr *fullRecord, msg *decodedContent) (hasMsg, ok bool) {
	s := &jsonscan.Scanner{B: line, Trusted: true}
	s.WS()
	ok = s.Object(func(key []byte) (bool, bool) {
		switch string(key) {
		case "type":
			fr.Type = rowString(s)
		case "uuid":
			fr.UUID = rowString(s)
		case "timestamp":
			fr.Timestamp = rowString(s)
		case "isCompactSummary":
			fr.IsCompactSummary = rowBool(s)
		case "message":
			if s.I >= len(s.B) || s.B[s.I] != '{' {
				return s.Skip(), true
			}
			return s.Object(func(key []byte) (bool, bool) {
				if string(key) != "content" {
					return s.Skip(), true
				}
				at := s.I
				hasMsg = true
				*msg = rowContent(s)
				fr.MessageContent = s.B[at:s.I]
				return true, true
			}), true
		case "content":
			fr.Content = rowRaw(s)
		case "rendered":
			fr.Rendered = rowRaw(s)
		default:
			return s.Skip(), true
		}
		return true, true
	})
	if s.WS(); s.I != len(line) {
		ok = false
	}
	return hasMsg, ok
}

// rowString reads a member as str does: a string decoded, anything else "".
func rowString(s *jsonscan.Scanner) string {
	if s.I < len(s.B) && s.B[s.I] == '"' {
		v, _ := s.Text()
		return v
	}
	s.Skip()
	return ""
}

// rowBool reads a member as boolean does: true only for true.
func rowBool(s *jsonscan.Scanner) bool {
	if s.Lit("true") {
		return true
	}
	s.Skip()
	return false
}

// rowRaw returns a member's bytes, as members hands them out.
func rowRaw(s *jsonscan.Scanner) []byte {
	at := s.I
	s.Skip()
	return s.B[at:s.I]
}

// rowContent decodes a content value where it stands, as contentText
// decodes it: a string, or a list of blocks (a tool result's own content
// decoded too).
func rowContent(s *jsonscan.Scanner) decodedContent {
	if s.I >= len(s.B) {
		return decodedContent{}
	}
	switch s.B[s.I] {
	case 'n':
		s.Skip()
		return decodedContent{}
	case '"':
		v, ok := s.Text()
		if !ok {
			return decodedContent{err: fmt.Errorf("content is not a valid string")}
		}
		return decodedContent{text: v}
	case '[':
	default:
		s.Skip()
		return decodedContent{err: fmt.Errorf("content is neither a string nor a list")}
	}
	var dc decodedContent
	var parts []string
	s.Array(func() bool {
		var b fullBlock
		if s.I >= len(s.B) || s.B[s.I] != '{' {
			dc.blocks = append(dc.blocks, b) // members reads nothing from it
			return s.Skip()
		}
		ok := s.Object(func(key []byte) (bool, bool) {
			switch string(key) {
			case "type":
				b.Type = rowString(s)
			case "text":
				b.Text = rowString(s)
			case "id":
				b.ID = rowString(s)
			case "name":
				b.Name = rowString(s)
			case "input":
				b.Input = rowRaw(s)
			case "tool_use_id":
				b.ToolUseID = rowString(s)
			case "content":
				at := s.I
				c := rowContent(s)
				b.Content, b.decoded = s.B[at:s.I], &c
			case "is_error":
				b.IsError = rowBool(s)
			default:
				return s.Skip(), true
			}
			return true, true
		})
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
		dc.blocks = append(dc.blocks, b)
		return ok
	})
	dc.text = strings.Join(parts, "\n\n")
	return dc
}
