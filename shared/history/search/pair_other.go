//go:build !amd64 || purego

package search

// pairBlock is 1: every position goes to indexPairKernel.
const pairBlock = 1

// indexPairKernel is the portable search (memchr-style bytes.IndexByte is
// vectorised on the other common architectures too).
func indexPairKernel(s []byte, q *pairQuery) int {
	if i := indexPairGeneric(s, q); i >= 0 {
		return i
	}
	return -(len(s) - q.d) - 1
}
