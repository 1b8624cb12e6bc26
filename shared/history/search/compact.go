package search

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// Compaction. A session file that changed is decoded and stored anew, in
// a new segment; its old blocks stay where they were, dead, until nothing
// names their segment. A segment dies whole when each of its sessions
// changed, which for the segments of the first build (thousands of
// sessions each) is rare: without compaction every session that changes
// once after the build leaves a dead copy, and an index over transcripts
// that keep changing grows past the quarter of their size it promises
// (measured: 300 MB of transcripts, 100 files changed between searches, six
// times: the index went from 20 % to 32 % of them). So a commit that
// changed the index also rewrites the segments with the most dead blocks,
// keeping only their live ones, until few enough are dead.
const (
	// compactDead is the share of the index's blocks that may be dead:
	// the index then holds at most a quarter more than its live blocks.
	compactDead = 0.2
	// What one commit copies out of the segments it compacts (stored,
	// compressed bytes) is compactRatio times what it stored anew, at
	// least compactMinBytes and at most compactMaxBytes: the work follows
	// the change that left blocks dead (a search after an append stays
	// about as cheap as the append's own decode), the index lock is held
	// for that long only, and the next commit goes on.
	compactRatio    = 2
	compactMinBytes = 1 << 20
	compactMaxBytes = segmentBytes
	// smallSegment and maxSmallSegments: each search that stores changed
	// sessions writes a segment of its own, often small, and every query
	// opens and looks up each segment it reads, each with a trigram table
	// of its own. When more than maxSmallSegments are smaller than
	// smallSegment, a commit merges them (within its budget).
	smallSegment     = segmentBytes / 4
	maxSmallSegments = 8
)

// compact rewrites the segments of m with the most dead blocks (blocks no
// entry names), copying their live blocks into new segments in dir, until
// at most compactDead of the blocks left are dead, and merges the small
// segments when there are too many (maxSmallSegments), while fewer than
// budget bytes have been copied (checked before each session: the
// sessions left stay where they are, for the next commit); the entries
// that moved name their new segment and blocks, and the old segments that
// nothing names any more are left for the caller to drop. A segment that cannot be read is left as it is (the search that
// reads it decodes its sessions again). It reports whether any entry
// moved. The caller holds the index lock.
func compact(dir string, m *manifest, budget int64) bool {
	type segLive struct {
		name    string
		size    int64
		blocks  uint32 // all of them
		live    uint32 // those an entry names
		entries []*entry
	}
	bySeg := map[string]*segLive{}
	for _, e := range m.Entries {
		if e.Blocks == 0 {
			continue
		}
		size, ok := m.Segs[e.Seg]
		if !ok {
			continue
		}
		sl := bySeg[e.Seg]
		if sl == nil {
			sl = &segLive{name: e.Seg, size: size}
			bySeg[e.Seg] = sl
		}
		sl.live += e.Blocks
		sl.entries = append(sl.entries, e)
	}
	// Only segments something still names count: the others are deleted
	// by the caller anyway.
	var total, dead int64
	var segs []*segLive
	for _, sl := range bySeg {
		s, err := openSegment(dir, sl.name, sl.size)
		if err != nil {
			continue
		}
		sl.blocks = s.blocks
		s.unmap()
		if sl.live > sl.blocks {
			continue // entries name blocks the segment lacks: damaged, left to the search
		}
		total += int64(sl.blocks)
		dead += int64(sl.blocks - sl.live)
		segs = append(segs, sl)
	}
	// The segments to rewrite: while too many blocks are dead, those with
	// the most dead first (each copies the fewest live blocks per dead
	// block it removes); then, when there are too many small segments,
	// the smallest, merged into one.
	slices.SortFunc(segs, func(a, b *segLive) int {
		da, db := float64(a.blocks-a.live)/float64(a.blocks), float64(b.blocks-b.live)/float64(b.blocks)
		if c := cmp.Compare(db, da); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	var victims []*segLive
	chosen := map[*segLive]bool{}
	for _, sl := range segs {
		if float64(dead) <= compactDead*float64(total) || sl.live == sl.blocks {
			break
		}
		victims, chosen[sl] = append(victims, sl), true
		total -= int64(sl.blocks - sl.live)
		dead -= int64(sl.blocks - sl.live)
	}
	var small []*segLive
	for _, sl := range segs {
		if !chosen[sl] && sl.size < smallSegment {
			small = append(small, sl)
		}
	}
	if len(small) > maxSmallSegments {
		slices.SortFunc(small, func(a, b *segLive) int { return cmp.Or(cmp.Compare(a.size, b.size), cmp.Compare(a.name, b.name)) })
		victims = append(victims, small...)
	}
	if len(victims) == 0 {
		return false
	}

	type move struct {
		e     *entry
		first uint32
	}
	var (
		b      = newSegBuilder()
		moves  []move
		copied int64
		moved  bool
		br     blockReader
	)
	flush := func() bool {
		if b.blocks == 0 {
			return true
		}
		name, size, err := b.write(dir)
		if err != nil {
			return false
		}
		m.Segs[name] = size
		for _, mv := range moves {
			mv.e.Seg, mv.e.First = name, mv.first
		}
		moved = moved || len(moves) > 0
		b, moves = newSegBuilder(), moves[:0]
		return true
	}
	for _, sl := range victims {
		if copied >= budget {
			break
		}
		s, err := openSegment(dir, sl.name, sl.size)
		if err != nil {
			continue
		}
		// Sessions in the order they were stored: blocks stay in order.
		slices.SortFunc(sl.entries, func(x, y *entry) int { return cmp.Compare(x.First, y.First) })
		whole := true
		for _, e := range sl.entries {
			if copied >= budget {
				break
			}
			first := b.blocks
			for i := e.First; i < e.First+e.Blocks && whole; i++ {
				stored, text, err := storedBlock(&br, s, i)
				if err != nil {
					// A damaged block: this session and those after it
					// stay where they are (the search that reads them
					// decodes them again); what was copied of it is dead
					// in the new segment.
					whole = false
					break
				}
				b.copyBlock(stored, text)
				copied += int64(len(stored))
			}
			if !whole {
				break
			}
			moves = append(moves, move{e, first})
		}
		s.unmap()
		if b.size() >= segmentBytes && !flush() {
			return moved
		}
	}
	flush()
	return moved
}

// storedBlock returns block i of s as stored (its inflated length, then
// its compressed bytes) and its text section, to copy it into another
// segment without compressing it again.
func storedBlock(br *blockReader, s *segment, i uint32) (stored []byte, text string, err error) {
	text, _, _, err = br.read(s, i)
	if err != nil {
		return nil, "", err
	}
	e := s.table[i*tableEntry:]
	off := binary.LittleEndian.Uint64(e)
	size := uint64(binary.LittleEndian.Uint32(e[8:]))
	return s.data[off : off+size], text, nil
}
