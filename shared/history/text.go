package history

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet geometry for history_list lines. A line must stay one line and
// short enough that a page of them is worth reading, yet show enough context
// around a match to decide whether to read the address.
const (
	// SnippetRunes bounds a snippet's length in runes (ellipses excluded).
	SnippetRunes = 160
	// snippetLead is how many runes of context precede a match.
	snippetLead = 50
)

// IndexFold returns the byte index in s of the first case-insensitive
// occurrence of the literal q, and the byte length of that occurrence in s,
// or -1, 0. Matching is literal (no patterns) and uses Unicode simple case
// folding rune by rune, so "STRASSE" does not match "straße" but "ÉTÉ"
// matches "été". An empty q matches at 0.
func IndexFold(s, q string) (int, int) {
	if q == "" {
		return 0, 0
	}
	if isASCII(q) {
		return indexFoldASCII(s, q)
	}
	qr := []rune(q)
	for i := 0; i < len(s); {
		if n, ok := matchRunesAt(s[i:], qr); ok {
			return i, n
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return -1, 0
}

// matchRunesAt reports whether s starts with a case-fold match of q and the
// byte length of the matched prefix.
func matchRunesAt(s string, q []rune) (int, bool) {
	n := 0
	for _, want := range q {
		if n >= len(s) {
			return 0, false
		}
		got, w := utf8.DecodeRuneInString(s[n:])
		if !equalFoldRune(got, want) {
			return 0, false
		}
		n += w
	}
	return n, true
}

func equalFoldRune(a, b rune) bool {
	if a == b {
		return true
	}
	// SimpleFold cycles through the rune's case-fold orbit.
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// indexFoldASCII is the fast path for an ASCII query, which is what agents
// search for nearly always. Non-ASCII bytes in s never equal an ASCII query
// byte, so comparing bytes with ASCII folding is exact except for the two
// Unicode runes that fold to ASCII letters (Kelvin sign, long s), which a
// literal ASCII search need not find.
func indexFoldASCII(s, q string) (int, int) {
	lq := strings.ToLower(q)
	first := lq[0]
	upper := first
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	n := len(lq)
	// Next occurrences of the first byte in either case, cached so that a
	// byte that is frequent in one case and absent in the other does not
	// make the scan quadratic. -1: no more occurrences.
	nextLower, nextUpper := -2, -2
	for i := 0; i+n <= len(s); {
		if nextLower != -1 && nextLower < i {
			nextLower = indexByteFrom(s, i, first)
		}
		if nextUpper != -1 && nextUpper < i {
			nextUpper = indexByteFrom(s, i, upper)
		}
		j := nextLower
		if j < 0 || (nextUpper >= 0 && nextUpper < j) {
			j = nextUpper
		}
		if j < 0 || j+n > len(s) {
			return -1, 0
		}
		if hasPrefixFoldASCII(s[j:], lq) {
			return j, n
		}
		i = j + 1
	}
	return -1, 0
}

// indexByteFrom is strings.IndexByte from offset from, as an absolute index.
func indexByteFrom(s string, from int, c byte) int {
	k := strings.IndexByte(s[from:], c)
	if k < 0 {
		return -1
	}
	return from + k
}

func hasPrefixFoldASCII(s, lowerQ string) bool {
	if len(s) < len(lowerQ) {
		return false
	}
	for k := 0; k < len(lowerQ); k++ {
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowerQ[k] {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// snippet renders one line of s around byte index at (a match's start), or
// s's beginning when at < 0: whitespace runs collapse to one space and the
// result holds at most SnippetRunes runes, with "…" marking cuts.
func snippet(s string, at int) string {
	if at < 0 {
		at = 0
	}
	// Find the rune window: snippetLead runes before the match start.
	start := at
	for k := 0; k < snippetLead && start > 0; k++ {
		_, w := utf8.DecodeLastRuneInString(s[:start])
		start -= w
	}
	if at == 0 {
		start = 0
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	count := 0
	space := false
	i := start
	for i < len(s) && count < SnippetRunes {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 && count > 0 {
			b.WriteByte(' ')
			count++
		}
		space = false
		b.WriteRune(r)
		count++
	}
	// Anything left but whitespace means the snippet was cut.
	if strings.TrimSpace(s[i:]) != "" {
		b.WriteString("…")
	}
	return b.String()
}

// oneLine collapses whitespace so a value cannot break a listing line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cutRuneBoundary returns the largest n' <= n such that s[:n'] ends on a
// rune boundary.
func cutRuneBoundary(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
