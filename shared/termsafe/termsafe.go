// Package termsafe renders untrusted text (transcript contents, note
// bodies, tool output) harmless for a person's terminal. A transcript can
// hold anything a tool printed, including escape sequences that move the
// cursor, rewrite earlier lines, set the window title, or plant OSC 8
// hyperlinks and clipboard writes; printed raw they would mislead the
// reader about what history says.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sanitize returns s with every C0 and C1 control character (except
// newline and tab) and DEL made visible and inert: ESC becomes the two
// characters `\e`, so an escape sequence (CSI, OSC, DCS, …) shows as plain
// text ("\e[31m") and does nothing; other C0 controls become \xNN, C1
// controls, line separators and bidi overrides \uNNNN. Invalid UTF-8 bytes become \xNN too. Carriage returns are
// escaped as well, since a bare CR lets later text overwrite a line.
// Text without any of these is returned unchanged.
func Sanitize(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			// C1 controls: U+009B is a one-character CSI on many
			// terminals, U+009D an OSC.
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '\u2028' || r == '\u2029' || isBidi(r):
			// Line separators and bidi overrides reorder or split what
			// the reader sees (the "Trojan Source" trick).
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isBidi reports the explicit bidirectional formatting characters.
func isBidi(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// clean reports whether s needs no change, the common case, without
// allocating.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			return cleanFrom(s[i:])
		}
	}
	return true
}

func cleanFrom(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029' || isBidi(r) {
			return false
		}
	}
	return true
}

// JSON makes encoded JSON (as encoding/json writes it: valid UTF-8, C0
// controls already escaped) safe for a terminal without changing what it
// says: every character Sanitize would make visible that encoding/json
// leaves raw (DEL, the C1 controls such as U+009B, a one-character CSI,
// line separators and bidi overrides such as U+202E) is written as its
// \uXXXX escape instead. A JSON decoder reads back exactly the same
// strings, so nothing is stripped; the raw bytes just never reach the
// terminal. (They can only occur inside strings: outside them they would
// not be JSON.) Invalid UTF-8 is left as it is; encoding/json never
// writes any.
func JSON(b []byte) []byte {
	if jsonClean(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if jsonEscapes(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// jsonEscapes reports the characters JSON writes as \uXXXX escapes.
func jsonEscapes(r rune) bool {
	return r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\u2028' || r == '\u2029' || isBidi(r)
}

func jsonClean(b []byte) bool {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if b[i] == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if jsonEscapes(r) {
			return false
		}
		i += size
	}
	return true
}
