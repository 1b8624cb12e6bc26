package search

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/shared/bincodec"
	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/index"
	"github.com/notesoup/notesoup/version"
)

// The persistent index (Options.Index) keeps, under CacheDir/index, each
// session's decoded, masked projection (its listable events, as
// history.VisibleEvent leaves them) in immutable segment files, with a
// trigram index (package index) over blocks of those events, and one
// manifest naming, for every session file, the key that proves it
// unchanged (filekey.Key, and its fork parents' keys), the segment and blocks
// holding its events, and its newest event time.
//
// Readers never wait for a writer: segments are never changed once named,
// and the manifest is replaced atomically (shared/atomicfile); a writer
// takes internal/filelock (bounded wait) only to merge its new entries
// into the manifest on disk and delete the segments nothing names any
// more. A segment a reader cannot open or read (deleted by a writer since
// the reader loaded its manifest, truncated, damaged) only makes its
// sessions decoded again, and the next write drops it.
//
// Nothing unmasked is stored: events are masked before a block holds them
// and before their trigrams are taken, so neither a segment's text nor its
// index holds a secret; the query itself is never stored.
const (
	indexDirName = "index"
	manifestName = "manifest.bin"
	lockName     = "lock"
	segPrefix    = "seg-"
	segSuffix    = ".nss"
	// storeFormat changes whenever what is stored changes meaning.
	// Format 5: entries say whether their key is racy (see filekey.RacyWindow).
	// Format 6: entries keep the session's notice (Summary.Notice).
	// Format 7: entries name their segment by its number in the manifest.
	// Format 8: entries name their source's scope (Source.Scope) by its
	// number in the manifest.
	storeFormat = 8
	// blockText bounds the searchable text of one index document: a
	// query verifies whole blocks, so smaller blocks verify less text per
	// candidate, and larger ones keep the posting lists short.
	blockText = 64 << 10
	// segmentBytes is when a worker writes out the segment it builds: the
	// memory a build holds, whatever the corpus size.
	segmentBytes = 16 << 20
	// lockWait bounds the wait for another writer; a search that gives up
	// still answers, and its work is redone by the next.
	lockWait = 5 * time.Second
	// orphanAge is how old an unnamed segment file must be before a
	// writer deletes it: one a concurrent writer has written and not yet
	// named is young.
	orphanAge = time.Hour
)

// entry is the manifest's record of one session file.
type entry struct {
	Key  filekey.Key
	Deps map[string]filekey.Key
	// Err is the decoder's refusal, kept like an answer.
	Err string
	// Seg names the segment holding the events (when Blocks > 0); First
	// is the first of their Blocks consecutive blocks there.
	Seg    string
	First  uint32
	Blocks uint32
	// Updated is the newest event time (UnixNano), 0 when none had one.
	Updated int64
	// Notice is the decode's Summary.Notice (no head), which history_list
	// shows with matches read from the index: for some harnesses (Pi) it
	// depends on the whole file, so it is kept rather than decoded again.
	Notice string
	// Racy: the key (or a parent's) was taken within filekey.RacyWindow of the
	// file's change time, so only the tail hash proves it unchanged; the
	// other entries are proven by a stat alone (see statProves).
	Racy bool
	// Scope is the Scope of the source that listed the file: a search
	// over other sources leaves the entry alone (see searchIndexed).
	Scope string
}

// manifest is the index's table of contents.
type manifest struct {
	// Gen is new (random) at every write: answers kept beside the index
	// are keyed on it, so any change to the index retires them.
	Gen     uint64
	Segs    map[string]int64 // name → size
	Entries map[string]*entry
}

const manifestMagic = "nsm\x00"

// loadManifest reads dir's manifest; a missing, torn or foreign one is an
// empty manifest (every session is decoded again, never guessed).
func loadManifest(dir string) *manifest {
	m, paths, ents := loadManifestList(dir)
	return m.withEntries(paths, ents)
}

// withEntries sets m.Entries from lists as decodeManifestList returns them.
func (m *manifest) withEntries(paths []string, ents []entry) *manifest {
	m.Entries = make(map[string]*entry, len(paths))
	for i, p := range paths {
		m.Entries[p] = &ents[i]
	}
	return m
}

// loadManifestList is loadManifest with the entries as two lists (paths[i]
// is ents[i]'s file) and m.Entries nil: a search puts them in its own table
// of answers, and a table of paths is built once, not twice.
func loadManifestList(dir string) (*manifest, []string, []entry) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err == nil {
		if m, paths, ents, err := decodeManifestList(data); err == nil {
			return m, paths, ents
		}
	}
	return &manifest{Segs: map[string]int64{}}, nil, nil
}

func decodeManifest(data []byte) (*manifest, error) {
	m, paths, ents, err := decodeManifestList(data)
	if err != nil {
		return nil, err
	}
	return m.withEntries(paths, ents), nil
}

func decodeManifestList(data []byte) (*manifest, []string, []entry, error) {
	payload, ok := bincodec.Verify(data, manifestMagic)
	if !ok {
		return nil, nil, nil, errCacheFormat
	}
	r := bincodec.NewReader(payload)
	if r.Uint() != storeFormat || r.Str() != version.Version {
		return nil, nil, nil, errCacheFormat
	}
	gen := r.Uint()
	ns := r.Uint()
	if r.Err() != nil || ns > uint64(r.Len()) {
		return nil, nil, nil, errCacheFormat
	}
	m := &manifest{Gen: gen, Segs: make(map[string]int64, ns)}
	names := make([]string, ns)
	for i := range names {
		names[i] = r.Str()
		m.Segs[names[i]] = r.Int()
	}
	nc := r.Uint()
	if r.Err() != nil || nc > uint64(r.Len()) {
		return nil, nil, nil, errCacheFormat
	}
	scopes := make([]string, nc)
	for i := range scopes {
		scopes[i] = r.Str()
	}
	ne := r.Uint()
	if r.Err() != nil || ne > uint64(r.Len()) {
		return nil, nil, nil, errCacheFormat
	}
	ents := make([]entry, ne)
	paths := make([]string, ne)
	for i := range ents {
		e := &ents[i]
		paths[i] = r.Str()
		e.Key = r.Key()
		flags := r.Byte()
		if flags&flagErr != 0 {
			e.Err = r.Str()
		}
		if flags&flagDeps != 0 {
			nd := r.Uint()
			if nd > uint64(r.Len()) {
				return nil, nil, nil, errCacheFormat
			}
			e.Deps = make(map[string]filekey.Key, nd)
			for range nd {
				p := r.Str()
				e.Deps[p] = r.Key()
			}
		}
		if flags&flagHits != 0 {
			k := r.Uint()
			if k >= uint64(len(names)) {
				return nil, nil, nil, errCacheFormat
			}
			e.Seg = names[k]
			e.First = uint32(r.Uint())
			e.Blocks = uint32(r.Uint())
		}
		e.Updated = r.Int()
		e.Notice = r.Str()
		c := r.Uint()
		if c >= uint64(len(scopes)) {
			return nil, nil, nil, errCacheFormat
		}
		e.Scope = scopes[c]
		e.Racy = flags&flagRacy != 0
		if r.Err() != nil {
			return nil, nil, nil, errCacheFormat
		}
	}
	if r.Err() != nil || r.Len() != 0 {
		return nil, nil, nil, errCacheFormat
	}
	return m, paths, ents, nil
}

// encode lays the manifest out; a new generation is drawn when newGen (the
// index's content changed), else m.Gen is kept (only keys were settled).
func (m *manifest) encode(newGen bool) []byte {
	b := append([]byte(nil), manifestMagic...)
	b = binary.AppendUvarint(b, storeFormat)
	b = bincodec.AppendString(b, version.Version)
	if newGen || m.Gen == 0 {
		var g [8]byte
		rand.Read(g[:])
		m.Gen = binary.LittleEndian.Uint64(g[:])
	}
	b = binary.AppendUvarint(b, m.Gen)
	b = binary.AppendUvarint(b, uint64(len(m.Segs)))
	segNo := make(map[string]uint64, len(m.Segs)) // entries name their segment by number
	for name, size := range m.Segs {
		segNo[name] = uint64(len(segNo))
		b = bincodec.AppendString(b, name)
		b = binary.AppendVarint(b, size)
	}
	// Scopes by number too: a few, each shared by thousands of entries.
	scopeNo := map[string]uint64{}
	var scopes []string
	for _, e := range m.Entries {
		if _, ok := scopeNo[e.Scope]; !ok {
			scopeNo[e.Scope] = uint64(len(scopes))
			scopes = append(scopes, e.Scope)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(scopes)))
	for _, c := range scopes {
		b = bincodec.AppendString(b, c)
	}
	// An entry whose blocks are in no segment the manifest holds cannot
	// be written (commit drops such entries first): it is left out, and
	// its file decoded again by the next search.
	n := 0
	for _, e := range m.Entries {
		if _, ok := segNo[e.Seg]; ok || e.Blocks == 0 {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for path, e := range m.Entries {
		if _, ok := segNo[e.Seg]; !ok && e.Blocks > 0 {
			continue
		}
		b = bincodec.AppendString(b, path)
		b = bincodec.AppendKey(b, e.Key)
		var flags byte
		if e.Err != "" {
			flags |= flagErr
		}
		if len(e.Deps) > 0 {
			flags |= flagDeps
		}
		if e.Blocks > 0 {
			flags |= flagHits
		}
		if e.Racy {
			flags |= flagRacy
		}
		b = append(b, flags)
		if e.Err != "" {
			b = bincodec.AppendString(b, e.Err)
		}
		if len(e.Deps) > 0 {
			b = binary.AppendUvarint(b, uint64(len(e.Deps)))
			for p, k := range e.Deps {
				b = bincodec.AppendString(b, p)
				b = bincodec.AppendKey(b, k)
			}
		}
		if e.Blocks > 0 {
			b = binary.AppendUvarint(b, segNo[e.Seg])
			b = binary.AppendUvarint(b, uint64(e.First))
			b = binary.AppendUvarint(b, uint64(e.Blocks))
		}
		b = binary.AppendVarint(b, e.Updated)
		b = bincodec.AppendString(b, e.Notice)
		b = binary.AppendUvarint(b, scopeNo[e.Scope])
	}
	return bincodec.AppendChecksum(b)
}

// Segment layout (integers little endian):
//
//	magic "nss1"
//	blocks: each its inflated length uvarint, then zstd of: n uvarint,
//	  the text section (its length uvarint, then each event's search
//	  text followed by '\n'), n event records (see appendEvent)
//	block table: per block, offset u64, length u32
//	trigram index (package index), one document per block
//	trailer: table offset u64, blocks u32, index offset u64,
//	  CRC-32C of these 20 bytes u32, "nse1"
//
// The manifest holds each segment's size, so a truncated segment is
// caught before it is read; every offset is checked against the file.
const (
	segMagic     = "nss1"
	segEndMagic  = "nse1"
	trailerBytes = 28
	tableEntry   = 12
)

// segBuilder builds one segment in memory (bounded by segmentBytes).
type segBuilder struct {
	data   []byte
	table  []byte
	idx    *index.Builder
	blocks uint32
	// the block being filled: its search texts (each followed by '\n')
	// and its event records
	text []byte
	recs []byte
	curN int
	raw  []byte // the block before compression
	z    []byte // the block compressed
}

// newSegBuilder returns an empty builder; its buffers (the trigram
// builder's alone is 2 MiB) are made by the first session it stores, so a
// search over an index that is up to date allocates none.
func newSegBuilder() *segBuilder { return &segBuilder{} }

// size is roughly the segment's bytes so far.
func (b *segBuilder) size() int { return len(b.data) + len(b.text) + len(b.recs) }

// addSession stores a session's listable, masked events and returns its
// first block and block count.
func (b *segBuilder) addSession(events []history.Event) (first, n uint32) {
	if b.idx == nil {
		b.data = append(make([]byte, 0, 1<<20), segMagic...)
		b.idx = index.NewBuilder()
	}
	first = b.blocks
	for _, ev := range events {
		st := searchText(ev)
		if b.curN > 0 && len(b.text)+len(st) > blockText {
			b.closeBlock()
		}
		b.text = append(b.text, st...)
		b.text = append(b.text, '\n')
		b.recs = appendEvent(b.recs, ev, len(st))
		b.curN++
	}
	if b.curN > 0 {
		b.closeBlock()
	}
	return first, b.blocks - first
}

func (b *segBuilder) closeBlock() {
	off := len(b.data)
	b.raw = binary.AppendUvarint(b.raw[:0], uint64(b.curN))
	b.raw = binary.AppendUvarint(b.raw, uint64(len(b.text)))
	b.raw = append(b.raw, b.text...)
	b.raw = append(b.raw, b.recs...)
	b.data = binary.AppendUvarint(b.data, uint64(len(b.raw)))
	// A block is compressed (zstd, fastest level): masked transcript
	// text shrinks to about a fifth, which keeps the index within a
	// quarter of the transcripts' size, and zstd inflates several times
	// faster than flate, which is what a query found everywhere pays.
	b.z = blockEncoder().EncodeAll(b.raw, b.z[:0])
	b.data = append(b.data, b.z...)
	b.table = binary.LittleEndian.AppendUint64(b.table, uint64(off))
	b.table = binary.LittleEndian.AppendUint32(b.table, uint32(len(b.data)-off))
	// The trigrams of the text section: the separators are newlines,
	// which a query never holds, so a trigram spanning two events only
	// adds a candidate, never hides one.
	b.idx.AddBytes(b.text)
	b.blocks++
	b.text, b.recs, b.curN = b.text[:0], b.recs[:0], 0
}

// copyBlock adds a block of another segment as it is stored there (its
// inflated length, then its compressed bytes), with its text section for
// the trigram index: compaction moves blocks without compressing them
// again. No block may be open (curN is 0).
func (b *segBuilder) copyBlock(stored []byte, text string) {
	if b.idx == nil {
		b.data = append(make([]byte, 0, 1<<20), segMagic...)
		b.idx = index.NewBuilder()
	}
	off := len(b.data)
	b.data = append(b.data, stored...)
	b.table = binary.LittleEndian.AppendUint64(b.table, uint64(off))
	b.table = binary.LittleEndian.AppendUint32(b.table, uint32(len(stored)))
	b.idx.Add(text)
	b.blocks++
}

var (
	blockEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false),
			// One encoder per processor: the build's workers compress at once
			// (EncodeAll waits for a free one).
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic(err) // only for invalid options
		}
		return e
	})
	blockDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlockRaw),
			zstd.WithDecoderLowmem(true))
		if err != nil {
			panic(err) // only for invalid options
		}
		return d
	})
)

// write lays the segment out in a new file of dir and returns its name
// and size. The file is synced before it is named anywhere.
func (b *segBuilder) write(dir string) (string, int64, error) {
	tableOff := uint64(len(b.data))
	out := append(b.data, b.table...)
	indexOff := uint64(len(out))
	out = b.idx.Append(out)
	t := binary.LittleEndian.AppendUint64(nil, tableOff)
	t = binary.LittleEndian.AppendUint32(t, b.blocks)
	t = binary.LittleEndian.AppendUint64(t, indexOff)
	t = bincodec.AppendChecksum(t)
	out = append(out, t...)
	out = append(out, segEndMagic...)
	var rnd [8]byte
	rand.Read(rnd[:])
	name := segPrefix + hex.EncodeToString(rnd[:]) + segSuffix
	if err := atomicfile.Write(filepath.Join(dir, name), out, atomicfile.Options{TempPrefix: ".seg-tmp-"}); err != nil {
		return "", 0, fmt.Errorf("search index: write a segment in %s: %w (remove the folder to start over)", dir, err)
	}
	return name, int64(len(out)), nil
}

// segment is a segment file read in place; it holds no buffers, so any
// number of goroutines read it at once (each with its blockReader).
type segment struct {
	data   []byte // mapped
	unmap  func()
	blocks uint32
	table  []byte
	idx    *index.Reader
}

var errSegment = errors.New("search index: damaged segment")

// openSegment maps a segment of the given size (as the manifest says).
func openSegment(dir, name string, size int64) (*segment, error) {
	if strings.ContainsAny(name, `/\`) || !strings.HasPrefix(name, segPrefix) {
		return nil, errSegment
	}
	data, unmap, err := mapFile(filepath.Join(dir, name), size)
	if err != nil {
		return nil, err
	}
	s, err := parseSegment(data)
	if err != nil {
		unmap()
		return nil, err
	}
	s.unmap = unmap
	return s, nil
}

func parseSegment(data []byte) (*segment, error) {
	n := len(data)
	if n < len(segMagic)+trailerBytes || string(data[:4]) != segMagic || string(data[n-4:]) != segEndMagic {
		return nil, errSegment
	}
	t := data[n-trailerBytes : n-4]
	if bincodec.Checksum(t[:20]) != binary.LittleEndian.Uint32(t[20:]) {
		return nil, errSegment
	}
	tableOff := binary.LittleEndian.Uint64(t)
	blocks := binary.LittleEndian.Uint32(t[8:])
	indexOff := binary.LittleEndian.Uint64(t[12:])
	end := uint64(n - trailerBytes)
	if tableOff > indexOff || indexOff > end || (indexOff-tableOff) != uint64(blocks)*tableEntry {
		return nil, errSegment
	}
	idx, err := index.Open(data[indexOff:end])
	if err != nil || idx.Docs() != blocks {
		return nil, errSegment
	}
	return &segment{data: data, blocks: blocks, table: data[tableOff:indexOff], idx: idx}, nil
}

// maxBlockRaw bounds a block's inflated size as a reader believes it: a
// block holds blockText of text, or one event (itself bounded by the
// decoder's line limit) and its fields.
const maxBlockRaw = 256 << 20

// blockReader reads blocks of any segment: its buffers are reused from
// block to block, so the strings it returns alias them until the next call
// (clone what is kept).
type blockReader struct {
	raw    []byte
	folded []byte
	win    []byte // a folded window (queryPlan.windows)
	foffs  []int
	evs    []history.Event
	offs   []int // each event's text offset in the text section
	hit    []bool
}

// read inflates block i of s and returns its text section (each event's
// search text followed by '\n') and the raw event records after it.
func (br *blockReader) read(s *segment, i uint32) (text, recs string, n int, err error) {
	if i >= s.blocks {
		return "", "", 0, errSegment
	}
	e := s.table[i*tableEntry:]
	off := binary.LittleEndian.Uint64(e)
	size := uint64(binary.LittleEndian.Uint32(e[8:]))
	if off+size > uint64(len(s.data)) || off < uint64(len(segMagic)) {
		return "", "", 0, errSegment
	}
	b := s.data[off : off+size]
	rawLen, w := binary.Uvarint(b)
	if w <= 0 || rawLen > maxBlockRaw {
		return "", "", 0, errSegment
	}
	br.raw, err = blockDecoder().DecodeAll(b[w:], br.raw[:0])
	if err != nil || uint64(len(br.raw)) != rawLen {
		return "", "", 0, errSegment
	}
	r := bincodec.NewReader(br.raw)
	count := r.Uint()
	text = r.Str()
	if r.Err() != nil || count > uint64(r.Len()) {
		return "", "", 0, errSegment
	}
	return text, r.Rest(), int(count), nil
}

// events parses a block's n records over its text section into br.evs
// (and each one's text offset into br.offs).
func (br *blockReader) events(text, recs string, n int) error {
	br.evs, br.offs = br.evs[:0], br.offs[:0]
	r := bincodec.NewStringReader(recs)
	at := 0
	for range n {
		ev, tl := readEvent(&r)
		if r.Err() != nil || tl < 0 || at+tl >= len(text) || text[at+tl] != '\n' {
			return errSegment
		}
		st := text[at : at+tl]
		if ev.Kind == history.KindToolUse {
			nl := int(r.Uint())
			if nl > len(st) || (nl < len(st) && st[nl] != ' ') {
				return errSegment
			}
			ev.ToolName = st[:nl]
			if nl < len(st) {
				ev.ToolInput = st[nl+1:]
			}
		} else {
			ev.Text = st
		}
		br.evs = append(br.evs, ev)
		br.offs = append(br.offs, at)
		at += tl + 1
	}
	if r.Err() != nil || r.Len() != 0 || at != len(text) {
		return errSegment
	}
	return nil
}

// appendEvent encodes the fields an entry renders from, except its search
// text (tl bytes, kept in the block's text section): for a tool call the
// length of its name within that text, and any text field the search text
// does not hold.
func appendEvent(b []byte, ev history.Event, tl int) []byte {
	b = binary.AppendUvarint(b, uint64(tl))
	b = binary.AppendVarint(b, ev.Seq)
	b = bincodec.AppendString(b, ev.Window)
	b = bincodec.AppendString(b, string(ev.Kind))
	b = bincodec.AppendString(b, string(ev.Role))
	// The fields outside the search text: a tool call's Text, another
	// event's ToolName and ToolInput.
	if ev.Kind == history.KindToolUse {
		b = bincodec.AppendString(b, ev.Text)
		b = bincodec.AppendString(b, "")
	} else {
		b = bincodec.AppendString(b, ev.ToolName)
		b = bincodec.AppendString(b, ev.ToolInput)
	}
	b = bincodec.AppendString(b, ev.ToolID)
	flag := byte(0)
	if ev.IsError {
		flag = 1
	}
	b = append(b, flag)
	b = binary.AppendVarint(b, ev.PairSeq)
	t := int64(0)
	if !ev.Time.IsZero() {
		t = ev.Time.UnixNano()
	}
	b = binary.AppendVarint(b, t)
	b = binary.AppendUvarint(b, uint64(ev.Line))
	if ev.Kind == history.KindToolUse {
		b = binary.AppendUvarint(b, uint64(len(ev.ToolName)))
	}
	return b
}

// readEvent reads what appendEvent wrote, up to the tool name's length
// (read by the caller for a tool call), and the search text's length.
func readEvent(r *bincodec.Reader) (history.Event, int) {
	tl := r.Uint()
	ev := history.Event{Seq: r.Int(), Window: r.Str(), Kind: history.Kind(r.Str()), Role: history.Role(r.Str())}
	if ev.Kind == history.KindToolUse {
		ev.Text = r.Str()
		r.Str()
	} else {
		ev.ToolName, ev.ToolInput = r.Str(), r.Str()
	}
	ev.ToolID = r.Str()
	ev.IsError = r.Byte() == 1
	ev.PairSeq = r.Int()
	if t := r.Int(); t != 0 {
		ev.Time = time.Unix(0, t)
	}
	ev.Line = int(r.Uint())
	if tl > maxBlockRaw {
		r.Fail()
		return ev, -1
	}
	return ev, int(tl)
}

// cloneEvent copies an event's strings out of a block's buffer.
func cloneEvent(ev history.Event) history.Event {
	ev.Window = strings.Clone(ev.Window)
	ev.Kind = history.Kind(strings.Clone(string(ev.Kind)))
	ev.Role = history.Role(strings.Clone(string(ev.Role)))
	ev.Text = strings.Clone(ev.Text)
	ev.ToolName = strings.Clone(ev.ToolName)
	ev.ToolInput = strings.Clone(ev.ToolInput)
	ev.ToolID = strings.Clone(ev.ToolID)
	return ev
}

// searchText is what Matches tests of a listable event.
func searchText(ev history.Event) string {
	if ev.Kind == history.KindToolUse {
		if ev.ToolInput != "" {
			return ev.ToolName + " " + ev.ToolInput
		}
		return ev.ToolName
	}
	return ev.Text
}

// writeManifest replaces dir's manifest atomically (synced, then renamed):
// a reader sees the old one or the new one.
func writeManifest(dir string, data []byte) error {
	if err := atomicfile.Write(filepath.Join(dir, manifestName), data, atomicfile.Options{TempPrefix: ".manifest-tmp-"}); err != nil {
		return fmt.Errorf("search index: write the manifest in %s: %w (remove the folder to start over)", dir, err)
	}
	return nil
}

// StoredText returns everything the index under cacheDir stores, with
// its blocks inflated: what anyone who can read the folder can read. For
// audits and tests that no secret is stored (the compressed segments hide
// text from a plain scan of the files, not from a reader). Unreadable
// segments are left out.
func StoredText(cacheDir string) []byte {
	dir := filepath.Join(cacheDir, indexDirName)
	data, _ := os.ReadFile(filepath.Join(dir, manifestName))
	out := append([]byte(nil), data...)
	m := loadManifest(dir)
	var br blockReader
	for name, size := range m.Segs {
		seg, err := openSegment(dir, name, size)
		if err != nil {
			continue
		}
		out = append(out, seg.data...)
		for i := range seg.blocks {
			if text, recs, _, err := br.read(seg, i); err == nil {
				out = append(out, text...)
				out = append(out, recs...)
			}
		}
		seg.unmap()
	}
	return out
}
