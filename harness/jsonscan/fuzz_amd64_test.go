//go:build amd64 && !purego

package jsonscan

import "testing"

// FuzzRunAgreesWithGo holds the assembly run to its Go twin, runGo, on
// arbitrary bytes: the same stop, the same escape and high-byte reports.
// TestRunAgreesWithGo covers every special at every block offset; this
// searches what those patterns leave out.
func FuzzRunAgreesWithGo(f *testing.F) {
	for _, s := range []string{"", `plain text`, `a\"b\\c\/d\ne`, "0123456789abcdef\"", "\x1f", `\u00e9`, "é\\t\xff", `\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, esc, high := run(b)
		wn, wesc, whigh := runGo(b)
		if n != wn || esc != wesc || high != whigh {
			t.Fatalf("run(%q) = %d, %v, %v; runGo = %d, %v, %v", b, n, esc, high, wn, wesc, whigh)
		}
	})
}

// FuzzUnescapeRunAgreesWithGo holds the assembly unescapeRun to its Go twin
// on arbitrary bytes: the same output, the same stop, the same high-byte
// report, and not a byte written past what the twin writes.
func FuzzUnescapeRunAgreesWithGo(f *testing.F) {
	for _, s := range []string{"", `plain`, `\n\"\\\/\t`, `x\u00e9y`, "0123456789abcdef\\n0123456789abcdef", `\x`, `\`, "é\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// Guard bytes past len(src), as wide as two of the kernel's
		// sixteen-byte stores, catch a write beyond the bound the contract
		// gives (dst at least as long as src).
		const guard, guardLen = 0xA5, 32
		dst := make([]byte, len(src)+guardLen)
		for i := len(src); i < len(dst); i++ {
			dst[i] = guard
		}
		want := make([]byte, len(src))
		w, r, high := unescapeRun(dst[:len(src)], src)
		ww, wr, whigh := unescapeRunGo(want, src)
		if w != ww || r != wr || high != whigh || string(dst[:w]) != string(want[:ww]) {
			t.Fatalf("unescapeRun(%q) = %q, %d, %v; unescapeRunGo = %q, %d, %v", src, dst[:w], r, high, want[:ww], wr, whigh)
		}
		for i := len(src); i < len(dst); i++ {
			if dst[i] != guard {
				t.Fatalf("unescapeRun(%q) wrote past len(dst), at %d", src, i)
			}
		}
	})
}
