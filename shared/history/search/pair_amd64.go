//go:build amd64 && !purego

package search

// pairBlock is how many positions the kernel tests per step; shorter
// inputs and the last partial block are tested in Go.
const pairBlock = 32

// useAVX2 selects the 32-byte kernel; without AVX2 (or without the OS
// saving its registers) the 16-byte SSE2 one, which every amd64 has, runs.
var useAVX2 = hasAVX2()

// indexPairAVX2 and indexPairSSE2 test whole blocks of positions of s for
// q (see pairQuery) and return the first hit, or -(next untested position)-1.
//
//go:noescape
func indexPairAVX2(s []byte, d, d3 int, c1, m1, c2, m2, r2, c3, m3 byte) int

//go:noescape
func indexPairSSE2(s []byte, d, d3 int, c1, m1, c2, m2, r2, c3, m3 byte) int

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

func indexPairKernel(s []byte, q *pairQuery) int {
	if useAVX2 {
		return indexPairAVX2(s, q.d, q.d3, q.c1, q.m1, q.c2, q.m2, q.r2, q.c3, q.m3)
	}
	return indexPairSSE2(s, q.d, q.d3, q.c1, q.m1, q.c2, q.m2, q.r2, q.c3, q.m3)
}

// hasAVX2 follows golang.org/x/sys/cpu: the CPU has AVX2 and the OS saves
// the YMM registers (XCR0 bits 1 and 2).
func hasAVX2() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}
