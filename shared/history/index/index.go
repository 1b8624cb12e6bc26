// Package index is a trigram index over numbered documents of text, the
// way Russ Cox's codesearch and zoekt find candidates: every document is
// reduced to the set of three-byte sequences of its case-folded text, a
// posting list per trigram names the documents holding it, and a query's
// candidates are the intersection of its trigrams' lists. A candidate may
// still not match (the trigrams need not be adjacent); a document without
// one of them never does. The caller verifies candidates.
//
// Case folding (Fold) maps every rune to one representative of its Unicode
// simple-fold orbit, so a literal case-insensitive match (history.IndexFold)
// of a query in a text implies that the folded query's bytes occur in the
// folded text: non-ASCII queries (`café`) are answered from the index too.
//
// The built index is one immutable byte slice (Builder.Append), read in
// place by Open, so a reader can map it from a file and touch only the
// pages a query needs: memory does not grow with the corpus. Every offset
// read from the slice is checked; a damaged index is an error, never a
// panic or an out-of-bounds read.
package index

import (
	"encoding/binary"
	"errors"
	"slices"
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Fold appends the case-folded form of s to dst: ASCII letters lower case,
// every other rune the smallest rune of its simple-fold orbit (ASCII upper
// case then lowered), so two runes fold alike exactly when
// unicode.SimpleFold relates them. Invalid UTF-8 folds to U+FFFD, one per
// byte, as utf8.DecodeRune reads it.
func Fold(dst []byte, s string) []byte { return fold(dst, s) }

// FoldBytes is Fold over bytes.
func FoldBytes(dst, s []byte) []byte { return fold(dst, s) }

// lowerASCII maps every byte to itself except A-Z, lowered.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// LowerASCII appends s with A-Z lowered and every other byte unchanged.
func LowerASCII(dst, s []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, len(s))[:n+len(s)]
	out := dst[n:]
	for i, c := range s {
		out[i] = lowerASCII[c]
	}
	return dst
}

func fold[T string | []byte](dst []byte, s T) []byte {
	// Written into room made once (a folded rune is never longer than
	// the rune, except an invalid byte, which becomes three): ASCII
	// through a table, two-byte runes through a table made once, others
	// by the orbit walk.
	n := len(dst)
	dst = slices.Grow(dst, len(s)+utf8.UTFMax)
	dst = dst[:cap(dst)]
	for i := 0; i < len(s); {
		if len(dst)-n < utf8.UTFMax {
			dst = slices.Grow(dst[:n], len(s)-i+utf8.UTFMax)
			dst = dst[:cap(dst)]
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst[n] = lowerASCII[c]
			n++
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		i += w
		if r < 0x800 {
			r = rune(twoByteFold()[r])
		} else {
			r = foldRune(r)
		}
		n += utf8.EncodeRune(dst[n:], r)
	}
	return dst[:n]
}

// twoByteFold is foldRune of every rune below U+0800 (Latin, Greek,
// Cyrillic and others: most non-ASCII letters in transcripts).
var twoByteFold = sync.OnceValue(func() *[0x800]uint16 {
	var t [0x800]uint16
	for r := range rune(0x800) {
		t[r] = uint16(foldRune(r)) // the smallest of an orbit: below r
	}
	return &t
})

// foldRune is the representative of r's simple-fold orbit.
func foldRune(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	if 'A' <= m && m <= 'Z' {
		m += 'a' - 'A'
	}
	return m
}

// Trigram is three bytes of folded text, big-endian in the low 24 bits.
type Trigram uint32

// QueryTrigrams returns the distinct trigrams of the folded query, sorted;
// nil when the folded query is shorter than three bytes (then the index
// proves nothing and every document is a candidate).
func QueryTrigrams(query string) []Trigram {
	f := Fold(nil, query)
	if len(f) < 3 {
		return nil
	}
	out := make([]Trigram, 0, len(f)-2)
	for i := 0; i+3 <= len(f); i++ {
		out = append(out, Trigram(uint32(f[i])<<16|uint32(f[i+1])<<8|uint32(f[i+2])))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Builder collects documents' trigrams; documents are numbered from 0 in
// the order they are added. Its memory is the posting lists themselves
// (about one to two bytes per distinct trigram per document), a 2 MiB
// bitmap and the table of lists (see lists).
type Builder struct {
	docs uint32
	// lists maps a trigram to 1 + its index in posts (0: none yet), in
	// pages of 4096 made when a trigram of theirs first occurs: a direct
	// table, not a hash map, because a build looks a trigram up once per
	// block holding it. Text uses few pages (about 350 for English and
	// code, 5.6 MB); the bound is 64 MB.
	lists [1 << 12]*[1 << 12]uint32
	posts []posting
	keys  []Trigram // every trigram with a list, unsorted
	seen  []uint64  // bitmap over all 2^24 trigrams: seen in this document
	set   []Trigram // the bits to clear after this document
	fold  []byte
}

// posting is a list under construction: delta-encoded document numbers.
type posting struct {
	last uint32
	n    uint32
	buf  []byte
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{seen: make([]uint64, 1<<24/64)}
}

// Docs is how many documents were added.
func (b *Builder) Docs() uint32 { return b.docs }

// Add adds the next document, the concatenation of texts (folded here; a
// trigram never spans two texts), and returns its number.
func (b *Builder) Add(texts ...string) uint32 {
	doc := b.docs
	b.docs++
	for _, t := range texts {
		b.fold = Fold(b.fold[:0], t)
		b.add(doc, b.fold)
	}
	b.endDoc()
	return doc
}

// AddBytes adds the next document, text (folded here), and returns its
// number.
func (b *Builder) AddBytes(text []byte) uint32 {
	doc := b.docs
	b.docs++
	b.fold = FoldBytes(b.fold[:0], text)
	b.add(doc, b.fold)
	b.endDoc()
	return doc
}

func (b *Builder) add(doc uint32, f []byte) {
	for i := 0; i+3 <= len(f); i++ {
		tg := Trigram(uint32(f[i])<<16 | uint32(f[i+1])<<8 | uint32(f[i+2]))
		w, bit := tg>>6, uint64(1)<<(tg&63)
		if b.seen[w]&bit != 0 {
			continue
		}
		b.seen[w] |= bit
		b.set = append(b.set, tg)
	}
}

// endDoc appends the document to the lists of the trigrams it holds: once
// per distinct trigram, after the scan, so the map is touched only for
// those.
func (b *Builder) endDoc() {
	doc := b.docs - 1
	for _, tg := range b.set {
		b.seen[tg>>6] = 0
		page := b.lists[tg>>12]
		if page == nil {
			page = new([1 << 12]uint32)
			b.lists[tg>>12] = page
		}
		k := page[tg&(1<<12-1)]
		if k == 0 {
			b.posts = append(b.posts, posting{})
			b.keys = append(b.keys, tg)
			k = uint32(len(b.posts))
			page[tg&(1<<12-1)] = k
		}
		p := &b.posts[k-1]
		if p.n == 0 {
			p.buf = binary.AppendUvarint(p.buf, uint64(doc))
		} else {
			p.buf = binary.AppendUvarint(p.buf, uint64(doc-p.last))
		}
		p.last = doc
		p.n++
	}
	b.set = b.set[:0]
}

func (b *Builder) list(tg Trigram) *posting { return &b.posts[b.lists[tg>>12][tg&(1<<12-1)]-1] }

// Layout of a built index (integers little endian):
//
//	magic "ntg1", docs u32, ntrigrams u32,
//	ntrigrams × entry (trigram u32, count u32, end u32: the end of its
//	  postings, relative to the postings area), sorted by trigram,
//	postings: per trigram, count uvarints, the first a document number,
//	  the others deltas.
const magic = "ntg1"

const (
	headerBytes = 12
	entryBytes  = 12
)

// Append lays the index out after dst (see Open) and returns it.
func (b *Builder) Append(dst []byte) []byte {
	keys := slices.Clone(b.keys)
	slices.Sort(keys)
	dst = append(dst, magic...)
	dst = binary.LittleEndian.AppendUint32(dst, b.docs)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(keys)))
	end := uint32(0)
	for _, tg := range keys {
		p := b.list(tg)
		end += uint32(len(p.buf))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(tg))
		dst = binary.LittleEndian.AppendUint32(dst, p.n)
		dst = binary.LittleEndian.AppendUint32(dst, end)
	}
	for _, tg := range keys {
		dst = append(dst, b.list(tg).buf...)
	}
	return dst
}

// ErrDamaged is any index Open or a lookup cannot read: the caller
// rebuilds it.
var ErrDamaged = errors.New("trigram index: damaged or not an index")

// Reader reads an index in place.
type Reader struct {
	data     []byte
	docs     uint32
	n        uint32
	postings []byte
}

// Open reads the index laid out in data (which it keeps, unchanged).
func Open(data []byte) (*Reader, error) {
	if len(data) < headerBytes || string(data[:4]) != magic {
		return nil, ErrDamaged
	}
	r := &Reader{data: data, docs: binary.LittleEndian.Uint32(data[4:]), n: binary.LittleEndian.Uint32(data[8:])}
	tableEnd := uint64(headerBytes) + uint64(r.n)*entryBytes
	if tableEnd > uint64(len(data)) {
		return nil, ErrDamaged
	}
	r.postings = data[tableEnd:]
	if r.n > 0 && uint64(r.end(r.n-1)) != uint64(len(r.postings)) {
		return nil, ErrDamaged
	}
	return r, nil
}

// Docs is how many documents the index holds.
func (r *Reader) Docs() uint32 { return r.docs }

func (r *Reader) entry(i uint32) []byte {
	off := headerBytes + int(i)*entryBytes
	return r.data[off : off+entryBytes]
}

func (r *Reader) end(i uint32) uint32 { return binary.LittleEndian.Uint32(r.entry(i)[8:]) }

// find returns the table position of tg, or false.
func (r *Reader) find(tg Trigram) (uint32, bool) {
	i := sort.Search(int(r.n), func(i int) bool {
		return Trigram(binary.LittleEndian.Uint32(r.entry(uint32(i)))) >= tg
	})
	if i < int(r.n) && Trigram(binary.LittleEndian.Uint32(r.entry(uint32(i)))) == tg {
		return uint32(i), true
	}
	return 0, false
}

// Count is the length of tg's posting list (0 when no document has it).
func (r *Reader) Count(tg Trigram) uint32 {
	i, ok := r.find(tg)
	if !ok {
		return 0
	}
	return binary.LittleEndian.Uint32(r.entry(i)[4:])
}

// Postings appends the documents holding tg to dst, ascending.
func (r *Reader) Postings(dst []uint32, tg Trigram) ([]uint32, error) {
	i, ok := r.find(tg)
	if !ok {
		return dst, nil
	}
	lo := uint32(0)
	if i > 0 {
		lo = r.end(i - 1)
	}
	hi := r.end(i)
	n := binary.LittleEndian.Uint32(r.entry(i)[4:])
	if lo > hi || hi > uint32(len(r.postings)) || n > hi-lo {
		return dst, ErrDamaged
	}
	p := r.postings[lo:hi]
	doc := uint64(0)
	for k := uint32(0); k < n; k++ {
		v, w := binary.Uvarint(p)
		if w <= 0 {
			return dst, ErrDamaged
		}
		p = p[w:]
		if k == 0 {
			doc = v
		} else {
			doc += v
		}
		if doc >= uint64(r.docs) {
			return dst, ErrDamaged
		}
		dst = append(dst, uint32(doc))
	}
	return dst, nil
}

// Candidates returns the documents that hold every trigram of the query,
// ascending; all is true when the query has no trigram (shorter than three
// folded bytes) and every document is a candidate. The rarest trigram's
// list is read first and the others only narrow it.
func (r *Reader) Candidates(query string) (docs []uint32, all bool, err error) {
	tgs := QueryTrigrams(query)
	if tgs == nil {
		return nil, true, nil
	}
	sort.Slice(tgs, func(i, j int) bool { return r.Count(tgs[i]) < r.Count(tgs[j]) })
	docs, err = r.Postings(nil, tgs[0])
	var next []uint32
	for _, tg := range tgs[1:] {
		if len(docs) == 0 || err != nil {
			break
		}
		next, err = r.Postings(next[:0], tg)
		docs = intersect(docs, next)
	}
	if err != nil {
		return nil, false, err
	}
	return docs, false, nil
}

// intersect keeps in a (ascending) the documents also in b (ascending).
func intersect(a, b []uint32) []uint32 {
	out := a[:0]
	j := 0
	for _, d := range a {
		for j < len(b) && b[j] < d {
			j++
		}
		if j < len(b) && b[j] == d {
			out = append(out, d)
		}
	}
	return out
}
