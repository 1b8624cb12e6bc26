package search

import (
	"strings"
	"testing"
)

func TestFoldLower(t *testing.T) {
	// Every byte value, at every alignment.
	src := make([]byte, 256+9)
	for i := range src {
		src[i] = byte(i)
	}
	for off := 0; off < 9; off++ {
		in := src[off:]
		out := make([]byte, len(in))
		foldLower(out, in)
		for i, c := range in {
			want := c
			if c >= 'A' && c <= 'Z' {
				want = c + 32
			}
			if out[i] != want {
				t.Fatalf("offset %d: byte %#x folded to %#x, want %#x", off, c, out[i], want)
			}
		}
	}
}

// TestFoldLowerFindsEscapes checks the in-pass escape detection against
// hasAlnumEscape at every position and alignment, across word boundaries.
func TestFoldLowerFindsEscapes(t *testing.T) {
	escapes := []string{`\u0041`, `\u007a`, `\u0030`, `\u001b`, `\u00e9`, `\\u`, `\n`, `u0041`}
	for _, e := range escapes {
		for pad := 0; pad < 20; pad++ {
			for tail := 0; tail < 10; tail++ {
				src := []byte(strings.Repeat("x", pad) + e + strings.Repeat("y", tail))
				dst := make([]byte, len(src))
				if got, want := foldLower(dst, src), hasAlnumEscape(src); got != want {
					t.Fatalf("%q: foldLower says escape=%v, hasAlnumEscape %v", src, got, want)
				}
			}
		}
	}
}
