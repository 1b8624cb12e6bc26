package search

import "encoding/binary"

// SWAR constants for working on eight bytes at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// zeroBytes sets the high bit of each byte of v that is zero (and, rarely,
// of a byte just above a zero byte: callers re-check what it flags).
func zeroBytes(v uint64) uint64 { return (v - ones) &^ v & highs }

// foldLower writes src lower-cased (ASCII letters only; every other byte,
// non-ASCII included, unchanged) into dst, which must be as long, and
// reports whether src holds a JSON \u00XX escape of an ASCII letter or
// digit (see hasAlnumEscape). It works on eight bytes at a time and spots
// the rare `\u` pairs in the same pass, so folding costs about a read.
func foldLower(dst, src []byte) (alnumEscape bool) {
	i := 0
	prevBackslash := false // the last byte of the previous word was '\'
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		h := x &^ highs                  // low seven bits of each byte
		ge := h + (0x80-'A')*ones        // high bit set where byte >= 'A'
		gt := h + (0x80-'Z'-1)*ones      // high bit set where byte > 'Z'
		upper := (ge &^ gt) &^ x & highs // 'A'..'Z' and ASCII
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
		bs := zeroBytes(x ^ ('\\' * ones))
		us := zeroBytes(x ^ ('u' * ones))
		// A backslash at byte k and a 'u' at byte k+1 (little endian:
		// the next byte is 8 bits up), or across the word boundary.
		if bs&(us>>8) != 0 || (prevBackslash && us&0x80 != 0) {
			if !alnumEscape && hasAlnumEscape(src[max(0, i-1):min(len(src), i+8+5)]) {
				alnumEscape = true
			}
		}
		prevBackslash = bs>>56 != 0
	}
	tail := i
	for ; i < len(src); i++ {
		c := src[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	// Pairs that start in the last word's last byte or in the tail.
	if !alnumEscape {
		alnumEscape = hasAlnumEscape(src[max(0, tail-1):])
	}
	return alnumEscape
}
