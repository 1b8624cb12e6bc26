// Package jsonscan is a single-pass JSON scanner for transcript lines,
// shared by the harness decoders' fast paths. encoding/json scans every
// line twice (validate, then decode) and unquotes every string; transcript
// lines are mostly one long string (a tool output), so a scanner that
// validates as it walks and copies only the strings a pass needs is several
// times faster. It is strict RFC 8259: anything it cannot take exactly as
// encoding/json would (invalid JSON, a key that matches a field only
// case-insensitively, a duplicate field, a type mismatch, nesting deeper
// than MaxDepth) makes it give up, and the caller falls back to the
// encoding/json path, which also words refusals.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth bounds nesting; deeper lines take the encoding/json path.
const MaxDepth = 512

// SWAR constants: eight bytes at a time.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// Scanner is a cursor over one line: B is the line, I the offset of the
// next byte to read.
type Scanner struct {
	B     []byte
	I     int
	depth int
}

func (s *Scanner) WS() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Str scans a string at s.I (the opening quote) and returns its raw
// contents (between the quotes) and whether it holds escapes.
func (s *Scanner) Str() (raw []byte, esc, ok bool) {
	b := s.B
	if s.I >= len(b) || b[s.I] != '"' {
		return nil, false, false
	}
	start := s.I + 1
	i := start
	for {
		// Skip eight plain bytes at a time: no quote, backslash or
		// control character among them.
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ ('"' * swarOnes)
			k := x ^ ('\\' * swarOnes)
			special := ((q - swarOnes) &^ q) | ((k - swarOnes) &^ k) | ((x - 0x20*swarOnes) &^ x)
			if special&swarHighs != 0 {
				break
			}
			i += 8
		}
		if i >= len(b) {
			return nil, false, false
		}
		c := b[i]
		switch {
		case c == '"':
			s.I = i + 1
			return b[start:i], esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return nil, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return nil, false, false
				}
				i += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Text scans a string value and returns it as encoding/json would decode
// it: escapes resolved, invalid UTF-8 replaced.
func (s *Scanner) Text() (string, bool) {
	raw, esc, ok := s.Str()
	if !ok {
		return "", false
	}
	if !esc && utf8.Valid(raw) {
		return string(raw), true
	}
	return unescape(raw), true
}

// unescape resolves the escapes of a string str already validated, exactly
// as encoding/json's unquote does: a surrogate pair becomes one rune, a lone
// surrogate and each invalid UTF-8 byte become U+FFFD.
func unescape(raw []byte) string {
	b := make([]byte, 0, len(raw))
	for r := 0; r < len(raw); {
		c := raw[r]
		switch {
		case c == '\\':
			switch e := raw[r+1]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := hex4(raw[r+2:])
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := rune(-1)
					if r+6 <= len(raw) && raw[r] == '\\' && raw[r+1] == 'u' {
						rr1 = hex4(raw[r+2:])
					}
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(raw[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	// b is not used again: hand it over without another copy.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// hex4 reads four hex digits (already validated).
func hex4(h []byte) rune {
	var v rune
	for _, c := range h[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		v = v<<4 | rune(c)
	}
	return v
}

// Number scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *Scanner) Number() bool {
	b, i := s.B, s.I
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	s.I = i
	return true
}

func (s *Scanner) Lit(word string) bool {
	if !bytes.HasPrefix(s.B[s.I:], []byte(word)) {
		return false
	}
	s.I += len(word)
	return true
}

// Null consumes a null and reports whether there was one.
func (s *Scanner) Null() bool {
	if s.I < len(s.B) && s.B[s.I] == 'n' {
		return s.Lit("null")
	}
	return false
}

// Skip validates and skips any value.
func (s *Scanner) Skip() bool {
	if s.I >= len(s.B) {
		return false
	}
	switch c := s.B[s.I]; {
	case c == '"':
		_, _, ok := s.Str()
		return ok
	case c == '{':
		return s.Object(func([]byte) (bool, bool) { return s.Skip(), true })
	case c == '[':
		return s.Array(s.Skip)
	case c == 't':
		return s.Lit("true")
	case c == 'f':
		return s.Lit("false")
	case c == 'n':
		return s.Lit("null")
	default:
		return s.Number()
	}
}

// Object walks an object at s.I. member is called with each key (escapes
// not resolved: a key with a backslash is given to member as is, and no
// field name has one) with s.I at the value, which member must consume; it
// returns ok=false to give up. known=false tells object the key is none of
// the caller's fields, so it checks that the key does not match one
// case-insensitively either.
func (s *Scanner) Object(member func(key []byte) (ok, known bool)) bool {
	return s.ObjectOf(nil, member)
}

// ObjectOf is object with the caller's field names, for the case-folding
// check of unknown keys.
func (s *Scanner) ObjectOf(fields []string, member func(key []byte) (ok, known bool)) bool {
	if s.I >= len(s.B) || s.B[s.I] != '{' {
		return false
	}
	if s.depth++; s.depth > MaxDepth {
		return false
	}
	s.I++
	s.WS()
	if s.I < len(s.B) && s.B[s.I] == '}' {
		s.I++
		s.depth--
		return true
	}
	for {
		s.WS()
		key, esc, ok := s.Str()
		if !ok {
			return false
		}
		s.WS()
		if s.I >= len(s.B) || s.B[s.I] != ':' {
			return false
		}
		s.I++
		s.WS()
		if esc && len(fields) > 0 {
			return false // an escaped key might name a field: take the slow path
		}
		ok, known := member(key)
		if !ok {
			return false
		}
		if !known {
			for _, f := range fields {
				if bytes.EqualFold(key, []byte(f)) {
					return false // encoding/json would match it case-insensitively
				}
			}
		}
		s.WS()
		if s.I >= len(s.B) {
			return false
		}
		switch s.B[s.I] {
		case ',':
			s.I++
		case '}':
			s.I++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// Array walks an array at s.I, calling elem with s.I at each element.
func (s *Scanner) Array(elem func() bool) bool {
	if s.I >= len(s.B) || s.B[s.I] != '[' {
		return false
	}
	if s.depth++; s.depth > MaxDepth {
		return false
	}
	s.I++
	s.WS()
	if s.I < len(s.B) && s.B[s.I] == ']' {
		s.I++
		s.depth--
		return true
	}
	for {
		s.WS()
		if !elem() {
			return false
		}
		s.WS()
		if s.I >= len(s.B) {
			return false
		}
		switch s.B[s.I] {
		case ',':
			s.I++
		case ']':
			s.I++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// OptText reads a *string field: null leaves it nil. want=false checks the
// type only and stores a shared placeholder, so the indexing pass copies no
// text.
func (s *Scanner) OptText(dst **string, want bool) bool {
	if s.Null() {
		*dst = nil
		return true
	}
	if !want {
		if _, _, ok := s.Str(); !ok {
			return false
		}
		*dst = &placeholder
		return true
	}
	v, ok := s.Text()
	if !ok {
		return false
	}
	*dst = &v
	return true
}

// placeholder stands for a string the pass does not need.
var placeholder string

// ReqText reads a string field of a non-pointer string: null is a no-op.
func (s *Scanner) ReqText(dst *string) bool {
	if s.Null() {
		return true
	}
	v, ok := s.Text()
	*dst = v
	return ok
}

// Seen guards against duplicate fields, which encoding/json merges in ways
// not worth mirroring.
type Seen uint32

func (m *Seen) First(bit uint) bool {
	if *m&(1<<bit) != 0 {
		return false
	}
	*m |= 1 << bit
	return true
}
