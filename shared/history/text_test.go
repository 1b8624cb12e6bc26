package history

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIndexFold(t *testing.T) {
	tests := []struct {
		s, q    string
		at, len int
	}{
		{"Hello World", "world", 6, 5},
		{"Hello World", "WORLD", 6, 5},
		{"Hello World", "o w", 4, 3},
		{"Hello World", "planet", -1, 0},
		{"abc", "", 0, 0},
		{"", "a", -1, 0},
		{"a.b*c", ".B*", 1, 3}, // literal, not a pattern
		{"été à Paris", "ÉTÉ", 0, len("été")},
		{"prefix ÉTÉ", "été", 7, len("ÉTÉ")},
		{"straße", "STRASSE", -1, 0}, // simple folding only
		{"xxAxxa", "a", 2, 1},
		{"ab", "abc", -1, 0},
		{"eeeeE", "EE", 0, 2},
		{"eeeex", "EX", 3, 2},
		{"abcABCabd", "ABD", 6, 3},
		{"1234", "34", 2, 2},
	}
	for _, tc := range tests {
		at, n := IndexFold(tc.s, tc.q)
		if at != tc.at || n != tc.len {
			t.Errorf("IndexFold(%q, %q) = %d,%d want %d,%d", tc.s, tc.q, at, n, tc.at, tc.len)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("word ", 100) + "NEEDLE" + strings.Repeat(" tail", 100)
	at, _ := IndexFold(long, "needle")
	s := snippet(long, at)
	if !strings.Contains(s, "NEEDLE") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Errorf("snippet around a match = %q", s)
	}
	if n := utf8.RuneCountInString(s); n > SnippetRunes+2 {
		t.Errorf("snippet has %d runes, bound %d", n, SnippetRunes)
	}
	if got := snippet("line one\n\n  line\ttwo", -1); got != "line one line two" {
		t.Errorf("whitespace not collapsed: %q", got)
	}
	if got := snippet("short", -1); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
}

// BenchmarkIndexFoldSkewed scans text where the query's first byte is
// everywhere in one case and absent in the other, the shape that would make
// a naive two-case scan quadratic.
func BenchmarkIndexFoldSkewed(b *testing.B) {
	s := strings.Repeat("e", 1<<20)
	b.SetBytes(int64(len(s)))
	for i := 0; i < b.N; i++ {
		if at, _ := IndexFold(s, "eX"); at != -1 {
			b.Fatal("false match")
		}
	}
}
