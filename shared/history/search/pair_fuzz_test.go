package search

import "testing"

// FuzzIndexPairAgreesWithDefinition holds every pair-search implementation
// this machine runs (the AVX2 and SSE2 kernels on amd64, the portable one
// elsewhere or under purego, and the memchr-based generic) to the
// one-position-at-a-time definition, indexPairRef, on arbitrary bytes and
// arbitrary queries. TestIndexPairAgreesWithDefinition covers chosen
// queries at every length up to 300; this searches what those leave out:
// any distance, mask, range and third test.
func FuzzIndexPairAgreesWithDefinition(f *testing.F) {
	f.Add([]byte("the Pasta is ready"), uint8(3), uint8(0), byte('p'), byte(0x20), byte('t'), byte(0x20), byte(0), byte('p'), byte(0x20))
	f.Add([]byte(`a\u00e9b and more text past one block of thirty-two`), uint8(4), uint8(1), byte('\\'), byte(0), byte('3'), byte(0), byte(4), byte('u'), byte(0))
	f.Add(make([]byte, 200), uint8(65), uint8(33), byte(0), byte(0), byte(0), byte(0), byte(0xff), byte(0), byte(0))
	f.Fuzz(func(t *testing.T, s []byte, d, d3 uint8, c1, m1, c2, m2, r2, c3, m3 byte) {
		// The queries the prefilter builds (atomProbe, escapeProbe): each
		// test is a byte exactly (mask 0) or a lower-case letter in either
		// case (mask 0x20, foldMask), and 0 <= d3 <= d. The generic search
		// relies on the first; distances past a few blocks test nothing new.
		fold := func(c, m byte) (byte, byte) {
			if m&1 == 1 && c|0x20 >= 'a' && c|0x20 <= 'z' {
				return c | 0x20, 0x20
			}
			return c, 0
		}
		c1, m1 = fold(c1, m1)
		c2, m2 = fold(c2, m2)
		c3, m3 = fold(c3, m3)
		q := pairQuery{d: int(d % 100), c1: c1, m1: m1, c2: c2, m2: m2, r2: r2, c3: c3, m3: m3}
		q.d3 = int(d3) % (q.d + 1)
		want := indexPairRef(s, &q)
		for name, impl := range pairImpls() {
			if got := impl(s, &q); got != want {
				t.Fatalf("%s: query %+v in %q: got %d, want %d", name, q, s, got, want)
			}
		}
	})
}
