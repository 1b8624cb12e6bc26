package pi

// idIndex maps entry ids to node indexes. Pi's ids are 8 lowercase hex
// characters (pi.md §3.2), which pack exactly into a uint32: those are kept
// in a map of integers, a quarter of the memory of a map of strings. Other
// ids (full UUIDs on collision fallback, v1 ids this decoder assigns,
// hand-written files) use the string map.
type idIndex struct {
	hex   map[uint32]int32
	other map[string]int32
}

func newIDIndex() idIndex {
	return idIndex{hex: make(map[uint32]int32), other: make(map[string]int32)}
}

// packHex8 packs an 8-character lowercase hex id; ok is false for any other
// id. Upper case is not folded: "ABCDEF01" and "abcdef01" are different ids.
func packHex8(id string) (uint32, bool) {
	if len(id) != 8 {
		return 0, false
	}
	var v uint32
	for i := 0; i < 8; i++ {
		c := id[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

func (x idIndex) get(id string) (int32, bool) {
	if k, ok := packHex8(id); ok {
		v, ok := x.hex[k]
		return v, ok
	}
	v, ok := x.other[id]
	return v, ok
}

func (x idIndex) put(id string, at int32) {
	if k, ok := packHex8(id); ok {
		x.hex[k] = at
		return
	}
	x.other[id] = at
}
