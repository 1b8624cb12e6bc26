package search

import "bytes"

// pairQuery is the question the scan kernel answers: at which position i
// is s[i] the byte c1 (after OR-ing m1 into it), s[i+d3] the byte c3
// (after OR-ing m3), and s[i+d], after OR-ing m2 and subtracting c2, at
// most r2 (unsigned)? OR-ing 0x20 folds an ASCII letter to lower case, so
// one test finds a letter in both cases; r2 > 0 tests a byte range. Three
// tests at three offsets of a literal rarely hold together by chance, so
// the kernel stops seldom and runs at the speed of its loads, where one
// rare byte searched with memchr stops every few dozen bytes in
// transcripts (see BenchmarkScanParts). 0 <= d3 <= d; a query with two
// tests repeats the first as the third (d3 = 0).
type pairQuery struct {
	d, d3          int
	c1, m1, c2, m2 byte
	r2             byte
	c3, m3         byte
}

// hit reports whether the test holds at position i of s.
func (q *pairQuery) hit(s []byte, i int) bool {
	return s[i]|q.m1 == q.c1 && (s[i+q.d]|q.m2)-q.c2 <= q.r2 && s[i+q.d3]|q.m3 == q.c3
}

// indexPair returns the first position i of s, with i+q.d < len(s), where
// q holds, or -1.
func indexPair(s []byte, q *pairQuery) int {
	n := len(s) - q.d // positions to test
	if n <= 0 {
		return -1
	}
	i := 0
	if n >= pairBlock {
		r := indexPairKernel(s, q)
		if r >= 0 {
			return r
		}
		i = -r - 1 // the kernel tests whole blocks; the rest is ours
	}
	for ; i < n; i++ {
		if q.hit(s, i) {
			return i
		}
	}
	return -1
}

// indexPairGeneric is indexPair without vector instructions: memchr for
// the first byte (both cases of a letter), then the second test.
func indexPairGeneric(s []byte, q *pairQuery) int {
	n := len(s) - q.d
	if n <= 0 {
		return -1
	}
	lo, hi := q.c1, q.c1
	if q.m1 == 0x20 && q.c1 >= 'a' && q.c1 <= 'z' {
		hi = q.c1 - 0x20
	}
	nextLo, nextHi := -2, -2 // -2: not searched yet; -1: none left
	for i := 0; i < n; {
		if nextLo != -1 && nextLo < i {
			nextLo = indexByteFrom(s[:n], lo, i)
		}
		if hi == lo {
			nextHi = nextLo
		} else if nextHi != -1 && nextHi < i {
			nextHi = indexByteFrom(s[:n], hi, i)
		}
		j := nextLo
		if j < 0 || (nextHi >= 0 && nextHi < j) {
			j = nextHi
		}
		if j < 0 {
			return -1
		}
		if q.hit(s, j) {
			return j
		}
		i = j + 1
	}
	return -1
}

func indexByteFrom(s []byte, c byte, from int) int {
	if j := bytes.IndexByte(s[from:], c); j >= 0 {
		return from + j
	}
	return -1
}
