package claude

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/notesoup/notesoup/harness/jsonscan"
)

// A small JSON scanner for transcript lines. encoding/json scans every byte
// of a line several times (validity check, then decode, then again for each
// nested RawMessage); a transcript is mostly large strings the first pass
// does not need, so validating once and then slicing out the few members the
// decoder reads is several times faster. validate accepts exactly the JSON
// grammar (RFC 8259; like encoding/json it does not check UTF-8); the
// walkers run only on validated bytes but still never index out of range.

// maxDepth bounds nesting, as encoding/json does, so a hostile line cannot
// exhaust the stack.
const maxDepth = 10000

var errDepth = errors.New("exceeded max depth")

// syntaxError is a malformed line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.msg, e.off) }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// validate checks that b is exactly one JSON value (surrounded by optional
// whitespace).
func validate(b []byte) error {
	i := skipSpace(b, 0)
	end, err := validValue(b, i, 0)
	if err != nil {
		return err
	}
	if end = skipSpace(b, end); end != len(b) {
		return &syntaxError{end, "invalid character after top-level value"}
	}
	return nil
}

// validateMembers validates b like validate and, when b is an object, calls
// fn with each top-level member as it goes: one scan does both.
func validateMembers(b []byte, fn func(key, val []byte)) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return validate(b)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return &syntaxError{i, "expected object key"}
			}
			kEnd, err := validString(b, i)
			if err != nil {
				return err
			}
			key := b[i+1 : kEnd-1]
			i = skipSpace(b, kEnd)
			if i >= len(b) || b[i] != ':' {
				return &syntaxError{i, "expected colon after object key"}
			}
			vStart := skipSpace(b, i+1)
			vEnd, err := validValue(b, vStart, 1)
			if err != nil {
				return err
			}
			fn(key, b[vStart:vEnd])
			i = skipSpace(b, vEnd)
			if i >= len(b) {
				return &syntaxError{i, "unexpected end of JSON input"}
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return &syntaxError{i, "expected comma or end of object"}
			}
			i = skipSpace(b, i+1)
		}
	}
	if i = skipSpace(b, i); i != len(b) {
		return &syntaxError{i, "invalid character after top-level value"}
	}
	return nil
}

func validValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, &syntaxError{i, "unexpected end of JSON input"}
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		if depth >= maxDepth {
			return i, errDepth
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, &syntaxError{i, "expected object key"}
			}
			var err error
			if i, err = validString(b, i); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, &syntaxError{i, "expected colon after object key"}
			}
			if i, err = validValue(b, skipSpace(b, i+1), depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, &syntaxError{i, "unexpected end of JSON input"}
			}
			if b[i] == '}' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return i, &syntaxError{i, "expected comma or end of object"}
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		if depth >= maxDepth {
			return i, errDepth
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = validValue(b, i, depth+1); err != nil {
				return i, err
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, &syntaxError{i, "unexpected end of JSON input"}
			}
			if b[i] == ']' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return i, &syntaxError{i, "expected comma or end of array"}
			}
			i = skipSpace(b, i+1)
		}
	case c == 't':
		return validLiteral(b, i, "true")
	case c == 'f':
		return validLiteral(b, i, "false")
	case c == 'n':
		return validLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return validNumber(b, i)
	}
	return i, &syntaxError{i, fmt.Sprintf("invalid character %q looking for a value", b[i])}
}

func validLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, &syntaxError{i, "invalid literal"}
	}
	return i + len(lit), nil
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func validNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, &syntaxError{start, "invalid number"}
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, &syntaxError{start, "invalid number"}
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, &syntaxError{start, "invalid number"}
		}
		i = j
	}
	return i, nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// validString checks the string starting at b[i] == '"' and returns the
// index after its closing quote.
func validString(b []byte, i int) (int, error) {
	start := i
	i++
	for i < len(b) {
		// Plain bytes and simple escapes, sixteen bytes at a time.
		n, _, _ := jsonscan.Run(b[i:])
		if i += n; i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return i, &syntaxError{i, "unexpected end of string escape"}
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, &syntaxError{i, "invalid \\u escape"}
				}
				i += 6
			default:
				return i, &syntaxError{i, "invalid escape in string"}
			}
		default: // c < 0x20
			return i, &syntaxError{i, "control character in string"}
		}
	}
	return i, &syntaxError{start, "unterminated string"}
}

// skip returns the end of the (validated) value at b[i]. On invalid input it
// returns some index in [i, len(b)], never panics.
func skip(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && !isSpace(b[i]) {
		i++
	}
	return i
}

func skipString(b []byte, i int) int {
	i++
	for i < len(b) {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		// The quote is escaped when an odd run of backslashes precedes it.
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1
		}
		i++
	}
	return len(b)
}

// members calls fn with each member of the object b (validated), key raw
// (without quotes, escapes undecoded) and value as raw bytes. A key written
// with escapes does not match the plain name the decoder looks for, so such a
// member is simply not read.
func members(b []byte, fn func(key, val []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		kEnd := skipString(b, i)
		key := b[i+1 : max(i+1, kEnd-1)]
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		vEnd := skip(b, i)
		fn(key, b[i:vEnd])
		i = skipSpace(b, vEnd)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipSpace(b, i+1)
	}
}

// elements calls fn with each element of the array b (validated).
func elements(b []byte, fn func(val []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		end := skip(b, i)
		if end == i {
			return
		}
		fn(b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipSpace(b, i+1)
	}
}

// str decodes a raw JSON string value; ok is false when raw is not a string.
func str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	// The shared decoder: one pass, escapes translated as the text is
	// copied, one allocation.
	return jsonscan.Unquote(raw[1 : len(raw)-1]), true
}

// strOrNull decodes a string, or nil for null; ok is false for anything else.
func strOrNull(raw []byte) (*string, bool) {
	if string(raw) == "null" {
		return nil, true
	}
	s, ok := str(raw)
	if !ok {
		return nil, false
	}
	return &s, true
}

// boolean decodes true, false or null (false).
func boolean(raw []byte) (bool, bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false", "null":
		return false, true
	}
	return false, false
}
