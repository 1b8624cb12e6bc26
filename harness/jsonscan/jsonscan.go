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
	"math/bits"
	"strings"
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
	B []byte
	I int
	// Trusted says B was validated by an earlier scan of the very same
	// bytes (a decoder's second pass over a file it read once). Strings
	// are then only delimited and decoded, not checked, which is several
	// times faster over tool output with an escape every few dozen bytes.
	// Other input is still never read out of range.
	Trusted bool
	depth   int
	boxes   []string // box's current block
}

// WS skips JSON whitespace.
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
	if s.Trusted {
		raw, ok = s.delimit()
		return raw, bytes.IndexByte(raw, '\\') >= 0, ok
	}
	raw, esc, _, ok = s.str()
	return raw, esc, ok
}

// delimit finds the end of a string already validated (Trusted): the first
// quote after s.I that an even run of backslashes precedes.
func (s *Scanner) delimit() (raw []byte, ok bool) {
	b := s.B
	if s.I >= len(b) || b[s.I] != '"' {
		return nil, false
	}
	start := s.I + 1
	for i := start; ; i++ {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return nil, false
		}
		i += k
		j := i - 1
		for j >= start && b[j] == '\\' {
			j--
		}
		if (i-1-j)%2 == 0 {
			s.I = i + 1
			return b[start:i], true
		}
	}
}

// special marks, with the high bit of each byte, the bytes of x that end a
// plain run of a string: a quote, a backslash or a control character. A
// borrow only carries into the bytes above a marked one, so the lowest mark
// is exact, which is the only one str uses.
func special(x uint64) uint64 {
	q := x ^ ('"' * swarOnes)
	k := x ^ ('\\' * swarOnes)
	return (((q - swarOnes) &^ q) | ((k - swarOnes) &^ k) | ((x - 0x20*swarOnes) &^ x)) & swarHighs
}

// Run scans the contents of a JSON string at the start of b (after its
// opening quote) and returns the length of the part it takes: plain bytes
// and the simple escapes (\" \\ \/ \b \f \n \r \t). It stops at the
// first byte it does not take (a quote, a \u or invalid escape, a control
// character) or at len(b), and reports whether it took an escape and a byte
// of 0x80 or more. Scanners of their own (Claude's) share it.
func Run(b []byte) (n int, esc, high bool) { return run(b) }

// simpleEscape marks the characters after a backslash that Run steps over.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// runGo is Run eight bytes at a time in Go: the portable version, and the
// reference the assembly is tested against.
func runGo(b []byte) (n int, esc, high bool) {
	var hi uint64
	i := 0
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if m := special(x); m != 0 {
				k := uint(bits.TrailingZeros64(m)) &^ 7 // bit offset of the special byte
				hi |= x & (1<<k - 1)
				i += int(k >> 3)
				break
			}
			hi |= x
			i += 8
		}
		for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
			hi |= uint64(b[i])
			i++
		}
		if i+1 < len(b) && b[i] == '\\' && simpleEscape[b[i+1]] {
			esc = true
			i += 2
			continue
		}
		return i, esc, hi&swarHighs != 0
	}
}

// str is Str that also reports whether the string holds a non-ASCII byte,
// so Text checks UTF-8 only when it could be invalid.
func (s *Scanner) str() (raw []byte, esc, high, ok bool) {
	b := s.B
	if s.I >= len(b) || b[s.I] != '"' {
		return nil, false, false, false
	}
	start := s.I + 1
	i := start
	for {
		n, e, h := run(b[i:])
		i += n
		esc, high = esc || e, high || h
		if i >= len(b) {
			return nil, false, false, false
		}
		switch b[i] {
		case '"':
			s.I = i + 1
			return b[start:i], esc, high, true
		case '\\':
			// run takes the simple escapes: this is \u or invalid.
			if i+6 > len(b) || b[i+1] != 'u' || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return nil, false, false, false
			}
			esc = true
			i += 6
		default: // a control character
			return nil, false, false, false
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Text scans a string value and returns it as encoding/json would decode
// it: escapes resolved, invalid UTF-8 replaced.
func (s *Scanner) Text() (string, bool) {
	if s.Trusted {
		raw, ok := s.delimit()
		if !ok {
			return "", false
		}
		return decodeTrusted(raw), true
	}
	raw, esc, high, ok := s.str()
	if !ok {
		return "", false
	}
	if !esc && (!high || utf8.Valid(raw)) {
		return string(raw), true
	}
	return unescape(raw, high), true
}

// Unquote decodes the contents of a JSON string already validated (the
// bytes between its quotes) as encoding/json would: escapes resolved,
// invalid UTF-8 replaced. For scanners of their own (Claude's).
func Unquote(raw []byte) string {
	return decodeTrusted(raw)
}

// unescape resolves the escapes of a string str already validated, exactly
// as encoding/json's unquote does: a surrogate pair becomes one rune, a lone
// surrogate and each invalid UTF-8 byte become U+FFFD. The plain runs
// between escapes are copied whole; high says whether they may hold
// non-ASCII bytes, which must then be valid UTF-8 to be copied as they are.
func unescape(raw []byte, high bool) string {
	// Escapes are ASCII, so the runs are valid UTF-8 exactly when the
	// whole string is: one check, not one per run.
	fix := high && !utf8.Valid(raw)
	if !fix {
		return unescapeValid(raw)
	}
	// Invalid UTF-8 (rare): each plain run is copied rune by rune, its
	// invalid bytes replaced. A Builder's buffer is not zeroed before it
	// is written, and String hands it over without a copy.
	var b strings.Builder
	b.Grow(len(raw))
	for r := 0; r < len(raw); {
		k := bytes.IndexByte(raw[r:], '\\')
		if k < 0 {
			k = len(raw) - r
		}
		writeValid(&b, raw[r:r+k])
		r += k
		if r >= len(raw) {
			break
		}
		if r+1 == len(raw) || raw[r+1] == 'u' && !validU(raw[r:]) {
			b.WriteByte('\\') // not an escape: raw was not validated
			r++
			continue
		}
		if e := raw[r+1]; e != 'u' {
			// A simple escape, or (unvalidated input) any other byte,
			// which is kept without its backslash.
			if c := unescapeByte[e]; c != 0 {
				e = c
			}
			b.WriteByte(e)
			r += 2
			continue
		}
		var rr rune
		rr, r = decodeU(raw, r)
		b.WriteRune(rr)
	}
	return b.String()
}

// unescapeByte translates the character after a backslash of a simple
// escape; zero for \u and anything invalid.
var unescapeByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeValid is unescape of a string that is valid UTF-8: the simple
// escapes are translated while the string is copied (unescapeRun), and Go
// decodes the \u escapes between runs. The decoded string is never longer
// than raw, so one buffer of that size takes it and is handed over
// without another copy.
func unescapeValid(raw []byte) string {
	b := make([]byte, len(raw))
	w, _ := unescapeInto(b, raw)
	if w == 0 {
		return ""
	}
	return unsafe.String(&b[0], w)
}

// decodeTrusted decodes a string Trusted delimited (or Unquote was given),
// in one pass for the common string, valid UTF-8; only a string with
// invalid UTF-8 is decoded again, the general way. Bytes that are not a
// valid escape are kept as they are, never read out of range.
func decodeTrusted(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	b := make([]byte, len(raw))
	w, high := unescapeInto(b, raw)
	if high && !utf8.Valid(raw) {
		return unescape(raw, true)
	}
	if w == 0 {
		return ""
	}
	return unsafe.String(&b[0], w)
}

// unescapeInto decodes raw, valid UTF-8 or not checked yet, into b (at
// least as long): the simple escapes are translated while the string is
// copied (unescapeRun), and Go decodes the \u escapes between runs. It
// returns the length written and whether raw holds a byte of 0x80 or more.
func unescapeInto(b, raw []byte) (w int, high bool) {
	r := 0
	for {
		dw, dr, h := unescapeRun(b[w:], raw[r:])
		w, r, high = w+dw, r+dr, high || h
		if r >= len(raw) {
			break
		}
		if !validU(raw[r:]) {
			// Not an escape: raw was not validated (Unquote's callers
			// may hand over anything). Keep the backslash, never panic.
			b[w] = raw[r]
			w, r = w+1, r+1
			continue
		}
		var rr rune
		rr, r = decodeU(raw, r)
		w += utf8.EncodeRune(b[w:], rr)
	}
	return w, high
}

// decodeU decodes the \u escape at raw[r] (validU holds there) as
// encoding/json does: a surrogate pair followed by its second half becomes
// one rune, a lone surrogate U+FFFD. It returns the rune and the index
// after what it read.
func decodeU(raw []byte, r int) (rune, int) {
	rr := hex4(raw[r+2:])
	r += 6
	if !utf16.IsSurrogate(rr) {
		return rr, r
	}
	rr1 := rune(-1)
	if r+6 <= len(raw) && raw[r] == '\\' && raw[r+1] == 'u' {
		rr1 = hex4(raw[r+2:])
	}
	if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
		return dec, r + 6
	}
	return unicode.ReplacementChar, r
}

// unescapeRunGo copies src to dst, translating the simple escapes, until a
// \u escape (returned at src[r]) or the end of src, and reports whether it
// read a byte of 0x80 or more; dst is at least as long as src. The portable
// unescapeRun, and the reference for the assembly.
func unescapeRunGo(dst, src []byte) (w, r int, high bool) {
	for r < len(src) {
		c := src[r]
		if c != '\\' {
			dst[w] = c
			w, r = w+1, r+1
			high = high || c >= utf8.RuneSelf
			continue
		}
		if r+1 >= len(src) || unescapeByte[src[r+1]] == 0 {
			break
		}
		dst[w] = unescapeByte[src[r+1]]
		w, r = w+1, r+2
	}
	return w, r, high
}

// writeValid writes run with each invalid UTF-8 byte replaced by U+FFFD.
func writeValid(b *strings.Builder, run []byte) {
	for r := 0; r < len(run); {
		if c := run[r]; c < utf8.RuneSelf {
			b.WriteByte(c)
			r++
			continue
		}
		rr, size := utf8.DecodeRune(run[r:])
		b.WriteRune(rr)
		r += size
	}
}

// validU reports whether b starts with a \u escape and its four digits.
func validU(b []byte) bool {
	return len(b) >= 6 && b[0] == '\\' && b[1] == 'u' && isHex(b[2]) && isHex(b[3]) && isHex(b[4]) && isHex(b[5])
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

// Lit consumes word (a literal: true, false, null) if it is next.
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
		if s.Trusted {
			_, ok := s.delimit()
			return ok
		}
		_, _, _, ok := s.str()
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
	*dst = s.box(v)
	return true
}

// placeholder stands for a string the pass does not need.
var placeholder string

// boxBlock is how many strings box allocates at a time.
const boxBlock = 8

// box returns a pointer to v stored in a block of strings shared by the
// scan's *string fields: one allocation for several fields rather than one
// each (a line has a handful: ids, names, texts).
func (s *Scanner) box(v string) *string {
	if len(s.boxes) == cap(s.boxes) {
		s.boxes = make([]string, 0, boxBlock)
	}
	s.boxes = append(s.boxes, v)
	return &s.boxes[len(s.boxes)-1]
}

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

// First marks field bit as seen and reports whether it was not before.
func (m *Seen) First(bit uint) bool {
	if *m&(1<<bit) != 0 {
		return false
	}
	*m |= 1 << bit
	return true
}
