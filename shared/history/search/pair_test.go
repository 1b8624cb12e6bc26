package search

import (
	"math/rand/v2"
	"testing"
)

// indexPairRef is the definition indexPair implements, one position at a
// time.
func indexPairRef(s []byte, q *pairQuery) int {
	for i := 0; i+q.d < len(s); i++ {
		if q.hit(s, i) {
			return i
		}
	}
	return -1
}

// pairImpls are every implementation this machine can run.
func pairImpls() map[string]func([]byte, *pairQuery) int {
	impls := map[string]func([]byte, *pairQuery) int{
		"generic": indexPairGeneric,
	}
	for name, avx2 := range kernelVariants() {
		impls[name] = func(s []byte, q *pairQuery) int {
			old := setKernel(avx2)
			defer setKernel(old)
			return indexPair(s, q)
		}
	}
	return impls
}

func TestIndexPairAgreesWithDefinition(t *testing.T) {
	queries := []pairQuery{
		{d: 0, c1: 'p', m1: 0x20, c2: 'p', m2: 0x20},         // one letter, both cases
		{d: 3, c1: 'c', m1: 0x20, c2: 'p', m2: 0x20},         // two letters
		{d: 1, c1: '1', c2: '2'},                             // digits: exact
		{d: 4, c1: '\\', c2: '3', r2: 4},                     // the escape test: a range
		{d: 7, c1: 'z', m1: 0x20, c2: 0x80, r2: 0x7f},        // a high range
		{d: 2, c1: 0xff, c2: 0},                              // extreme bytes
		{d: 33, c1: 'a', m1: 0x20, c2: 'b', m2: 0x20},        // a distance longer than a block
		{d: 65, c1: 'a', m1: 0x20, c2: 'a', m2: 0x20, r2: 1}, // and longer than two
		{d: 4, d3: 1, c1: '\\', c2: '3', r2: 4, c3: 'u'},     // three tests
		{d: 40, d3: 33, c1: 'p', m1: 0x20, c2: 'z', m2: 0x20, c3: 'b', m3: 0x20},
		{d: 2, d3: 2, c1: 'c', c2: 'a', m2: 0x20, r2: 2, c3: 'C'},
	}
	for i := range queries {
		if queries[i].c3 == 0 { // two tests: the first again
			queries[i].c3, queries[i].m3 = queries[i].c1, queries[i].m1
		}
	}
	alphabet := []byte("aAbBcCpPzZ12\\3u7\x00\xff\x80")
	rng := rand.New(rand.NewPCG(7, 9))
	for name, impl := range pairImpls() {
		for qi := range queries {
			q := &queries[qi]
			for n := 0; n < 300; n++ {
				for k := 0; k < 8; k++ {
					s := make([]byte, n)
					for i := range s {
						s[i] = alphabet[rng.IntN(len(alphabet))]
					}
					// Sparse hits too, so long runs of misses are tested.
					if k%2 == 1 {
						for i := range s {
							if rng.IntN(40) != 0 {
								s[i] = 'x'
							}
						}
					}
					if got, want := impl(s, q), indexPairRef(s, q); got != want {
						t.Fatalf("%s: query %+v in %q: got %d, want %d", name, *q, s, got, want)
					}
				}
			}
		}
	}
}

func TestIndexPairFindsEveryPosition(t *testing.T) {
	// A single hit at each position of buffers around block multiples,
	// so every lane, block and tail is exercised.
	q := &pairQuery{d: 5, d3: 2, c1: 'k', m1: 0x20, c2: 'q', m2: 0x20, c3: 'k', m3: 0x20}
	for name, impl := range pairImpls() {
		for _, n := range []int{6, 31, 32, 37, 63, 64, 69, 95, 96, 101, 200} {
			for at := 0; at+q.d < n; at++ {
				s := make([]byte, n)
				for i := range s {
					s[i] = 'k' // only the first and third tests hold here
				}
				s[at+q.d] = 'Q'
				if got := impl(s, q); got != at {
					t.Fatalf("%s: n=%d hit at %d: got %d", name, n, at, got)
				}
			}
		}
	}
}
