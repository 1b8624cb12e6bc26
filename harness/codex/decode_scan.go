package codex

import (
	"bytes"
	"encoding/binary"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A single-pass JSON scanner for the common rollout line shapes (the same
// scanner as harness/pi's decode_scan.go; they should move to one shared
// package). encoding/json
// scans every line twice (validate, then decode) and unquotes every string;
// entry lines are mostly one long string (a tool output), so a scanner that
// validates as it walks and copies only the strings a pass needs is several
// times faster. It is strict RFC 8259: anything it cannot take exactly as
// encoding/json would (invalid JSON, a key that matches a field only
// case-insensitively, a duplicate field, a type mismatch, nesting deeper than
// maxScanDepth) makes it give up, and the caller falls back to the
// encoding/json path, which also words refusals.

// maxScanDepth bounds nesting; deeper lines take the encoding/json path.
const maxScanDepth = 512

// SWAR constants: eight bytes at a time.
const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// scan is a cursor over one line.
type scan struct {
	b     []byte
	i     int
	depth int
}

func (s *scan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str scans a string at s.i (the opening quote) and returns its raw
// contents (between the quotes) and whether it holds escapes.
func (s *scan) str() (raw []byte, esc, ok bool) {
	b := s.b
	if s.i >= len(b) || b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
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
			s.i = i + 1
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

// text scans a string value and returns it as encoding/json would decode
// it: escapes resolved, invalid UTF-8 replaced.
func (s *scan) text() (string, bool) {
	raw, esc, ok := s.str()
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

// number scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scan) number() bool {
	b, i := s.b, s.i
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
	s.i = i
	return true
}

func (s *scan) lit(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// null consumes a null and reports whether there was one.
func (s *scan) null() bool {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return s.lit("null")
	}
	return false
}

// skip validates and skips any value.
func (s *scan) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '{':
		return s.object(func([]byte) (bool, bool) { return s.skip(), true })
	case c == '[':
		return s.array(s.skip)
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	default:
		return s.number()
	}
}

// object walks an object at s.i. member is called with each key (escapes
// not resolved: a key with a backslash is given to member as is, and no
// field name has one) with s.i at the value, which member must consume; it
// returns ok=false to give up. known=false tells object the key is none of
// the caller's fields, so it checks that the key does not match one
// case-insensitively either.
func (s *scan) object(member func(key []byte) (ok, known bool)) bool {
	return s.objectOf(nil, member)
}

// objectOf is object with the caller's field names, for the case-folding
// check of unknown keys.
func (s *scan) objectOf(fields []string, member func(key []byte) (ok, known bool)) bool {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	if s.depth++; s.depth > maxScanDepth {
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		s.ws()
		key, esc, ok := s.str()
		if !ok {
			return false
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
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
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// array walks an array at s.i, calling elem with s.i at each element.
func (s *scan) array(elem func() bool) bool {
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return false
	}
	if s.depth++; s.depth > maxScanDepth {
		return false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// optText reads a *string field: null leaves it nil. want=false checks the
// type only and stores a shared placeholder, so the indexing pass copies no
// text.
func (s *scan) optText(dst **string, want bool) bool {
	if s.null() {
		*dst = nil
		return true
	}
	if !want {
		if _, _, ok := s.str(); !ok {
			return false
		}
		*dst = &placeholder
		return true
	}
	v, ok := s.text()
	if !ok {
		return false
	}
	*dst = &v
	return true
}

// placeholder stands for a string the pass does not need.
var placeholder string

// reqText reads a string field of a non-pointer string: null is a no-op.
func (s *scan) reqText(dst *string) bool {
	if s.null() {
		return true
	}
	v, ok := s.text()
	*dst = v
	return ok
}

// seen guards against duplicate fields, which encoding/json merges in ways
// not worth mirroring.
type seen uint32

func (m *seen) first(bit uint) bool {
	if *m&(1<<bit) != 0 {
		return false
	}
	*m |= 1 << bit
	return true
}
