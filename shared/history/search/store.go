package search

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/index"
	"github.com/notesoup/notesoup/version"
)

// The persistent index (Options.Index) keeps, under CacheDir/index, each
// session's decoded, masked projection (its listable events, as
// history.VisibleEvent leaves them) in immutable segment files, with a
// trigram index (package index) over blocks of those events, and one
// manifest naming, for every session file, the key that proves it
// unchanged (FileKey, and its fork parents' keys), the segment and blocks
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
	storeFormat = 2
	// blockText bounds the searchable text of one index document: a
	// query verifies whole blocks, so smaller blocks verify less text per
	// candidate, and larger ones keep the posting lists short.
	blockText = 32 << 10
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
	Key  FileKey
	Deps map[string]FileKey
	// Err is the decoder's refusal, kept like an answer.
	Err string
	// Seg names the segment holding the events (when Blocks > 0); First
	// is the first of their Blocks consecutive blocks there.
	Seg    string
	First  uint32
	Blocks uint32
	// Updated is the newest event time (UnixNano), 0 when none had one.
	Updated int64
}

// manifest is the index's table of contents.
type manifest struct {
	Segs    map[string]int64 // name → size
	Entries map[string]*entry
}

const manifestMagic = "nsm\x00"

// loadManifest reads dir's manifest; a missing, torn or foreign one is an
// empty manifest (every session is decoded again, never guessed).
func loadManifest(dir string) *manifest {
	m := &manifest{Segs: map[string]int64{}, Entries: map[string]*entry{}}
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return m
	}
	got, err := decodeManifest(data)
	if err != nil {
		return m
	}
	return got
}

func decodeManifest(data []byte) (*manifest, error) {
	if len(data) < len(manifestMagic)+4 || string(data[:len(manifestMagic)]) != manifestMagic {
		return nil, errCacheFormat
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errCacheFormat
	}
	r := &cacheReader{s: unsafe.String(unsafe.SliceData(body), len(body))[len(manifestMagic):]}
	if r.uint() != storeFormat || r.str() != version.Version {
		return nil, errCacheFormat
	}
	ns := r.uint()
	if r.err != nil || ns > uint64(len(r.s)) {
		return nil, errCacheFormat
	}
	m := &manifest{Segs: make(map[string]int64, ns)}
	for range ns {
		name := r.str()
		m.Segs[name] = r.int()
	}
	ne := r.uint()
	if r.err != nil || ne > uint64(len(r.s)) {
		return nil, errCacheFormat
	}
	m.Entries = make(map[string]*entry, ne)
	ents := make([]entry, ne)
	for i := range ents {
		e := &ents[i]
		path := r.str()
		e.Key = r.key()
		flags := r.byte()
		if flags&flagErr != 0 {
			e.Err = r.str()
		}
		if flags&flagDeps != 0 {
			nd := r.uint()
			if nd > uint64(len(r.s)) {
				return nil, errCacheFormat
			}
			e.Deps = make(map[string]FileKey, nd)
			for range nd {
				p := r.str()
				e.Deps[p] = r.key()
			}
		}
		if flags&flagHits != 0 {
			e.Seg = r.str()
			e.First = uint32(r.uint())
			e.Blocks = uint32(r.uint())
			if _, ok := m.Segs[e.Seg]; !ok {
				return nil, errCacheFormat
			}
		}
		e.Updated = r.int()
		if r.err != nil {
			return nil, errCacheFormat
		}
		m.Entries[path] = e
	}
	if r.err != nil || len(r.s) != 0 {
		return nil, errCacheFormat
	}
	return m, nil
}

func (m *manifest) encode() []byte {
	b := append([]byte(nil), manifestMagic...)
	b = binary.AppendUvarint(b, storeFormat)
	b = appendStr(b, version.Version)
	b = binary.AppendUvarint(b, uint64(len(m.Segs)))
	for name, size := range m.Segs {
		b = appendStr(b, name)
		b = binary.AppendVarint(b, size)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Entries)))
	for path, e := range m.Entries {
		b = appendStr(b, path)
		b = appendKey(b, e.Key)
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
		b = append(b, flags)
		if e.Err != "" {
			b = appendStr(b, e.Err)
		}
		if len(e.Deps) > 0 {
			b = binary.AppendUvarint(b, uint64(len(e.Deps)))
			for p, k := range e.Deps {
				b = appendStr(b, p)
				b = appendKey(b, k)
			}
		}
		if e.Blocks > 0 {
			b = appendStr(b, e.Seg)
			b = binary.AppendUvarint(b, uint64(e.First))
			b = binary.AppendUvarint(b, uint64(e.Blocks))
		}
		b = binary.AppendVarint(b, e.Updated)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// Segment layout (integers little endian):
//
//	magic "nss1"
//	blocks: each its inflated length uvarint, then flate of: n uvarint,
//	  n events (see appendEvent)
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
	// the block being filled
	cur     []byte
	curN    int
	curText int
	texts   []string
	raw     []byte // the block before compression
	zbuf    bytes.Buffer
	zw      *flate.Writer
}

func newSegBuilder() *segBuilder {
	return &segBuilder{data: append(make([]byte, 0, 1<<20), segMagic...), idx: index.NewBuilder()}
}

// size is roughly the segment's bytes so far.
func (b *segBuilder) size() int { return len(b.data) + len(b.cur) }

// addSession stores a session's listable, masked events and returns its
// first block and block count.
func (b *segBuilder) addSession(events []history.Event) (first, n uint32) {
	first = b.blocks
	for _, ev := range events {
		text := searchText(ev)
		if b.curN > 0 && b.curText+len(text) > blockText {
			b.closeBlock()
		}
		b.cur = appendEvent(b.cur, ev)
		b.curN++
		b.curText += len(text)
		b.texts = append(b.texts, text)
	}
	if b.curN > 0 {
		b.closeBlock()
	}
	return first, b.blocks - first
}

func (b *segBuilder) closeBlock() {
	off := len(b.data)
	// A block is compressed (flate, fastest level): masked transcript
	// text shrinks to about a third, which keeps the index within a
	// quarter of the transcripts' size; only candidate blocks are ever
	// inflated.
	b.raw = binary.AppendUvarint(b.raw[:0], uint64(b.curN))
	b.raw = append(b.raw, b.cur...)
	b.data = binary.AppendUvarint(b.data, uint64(len(b.raw)))
	b.zbuf.Reset()
	if b.zw == nil {
		b.zw, _ = flate.NewWriter(&b.zbuf, flate.BestSpeed)
	} else {
		b.zw.Reset(&b.zbuf)
	}
	b.zw.Write(b.raw)
	b.zw.Close()
	b.data = append(b.data, b.zbuf.Bytes()...)
	b.table = binary.LittleEndian.AppendUint64(b.table, uint64(off))
	b.table = binary.LittleEndian.AppendUint32(b.table, uint32(len(b.data)-off))
	b.idx.Add(b.texts...)
	b.blocks++
	b.cur, b.curN, b.curText = b.cur[:0], 0, 0
	clear(b.texts)
	b.texts = b.texts[:0]
}

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
	t = binary.LittleEndian.AppendUint32(t, crc32.Checksum(t, castagnoli))
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

// segment is a segment file read in place.
type segment struct {
	data   []byte // mapped
	unmap  func()
	blocks uint32
	table  []byte
	idx    *index.Reader
	raw    []byte        // the block read last, inflated
	zr     io.ReadCloser // flate reader, reset per block
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
	if crc32.Checksum(t[:20], castagnoli) != binary.LittleEndian.Uint32(t[20:]) {
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

// block returns block i's events, their strings aliasing the segment's
// inflate buffer, which the next call reuses (clone what is kept).
func (s *segment) block(i uint32, dst []history.Event) ([]history.Event, error) {
	if i >= s.blocks {
		return dst, errSegment
	}
	e := s.table[i*tableEntry:]
	off := binary.LittleEndian.Uint64(e)
	n := uint64(binary.LittleEndian.Uint32(e[8:]))
	if off+n > uint64(len(s.data)) || off < uint64(len(segMagic)) {
		return dst, errSegment
	}
	b := s.data[off : off+n]
	rawLen, w := binary.Uvarint(b)
	if w <= 0 || rawLen > maxBlockRaw {
		return dst, errSegment
	}
	if cap(s.raw) < int(rawLen) {
		s.raw = make([]byte, rawLen)
	}
	s.raw = s.raw[:rawLen]
	if s.zr == nil {
		s.zr = flate.NewReader(bytes.NewReader(b[w:]))
	} else {
		s.zr.(flate.Resetter).Reset(bytes.NewReader(b[w:]), nil)
	}
	if _, err := io.ReadFull(s.zr, s.raw); err != nil {
		return dst, errSegment
	}
	r := &cacheReader{s: unsafe.String(unsafe.SliceData(s.raw), len(s.raw))}
	count := r.uint()
	if count > uint64(len(r.s)) {
		return dst, errSegment
	}
	for range count {
		dst = append(dst, readEvent(r))
	}
	if r.err != nil || len(r.s) != 0 {
		return dst, errSegment
	}
	return dst, nil
}

// appendEvent encodes the fields an entry renders from.
func appendEvent(b []byte, ev history.Event) []byte {
	b = binary.AppendVarint(b, ev.Seq)
	b = appendStr(b, ev.Window)
	b = appendStr(b, string(ev.Kind))
	b = appendStr(b, string(ev.Role))
	b = appendStr(b, ev.Text)
	b = appendStr(b, ev.ToolName)
	b = appendStr(b, ev.ToolID)
	b = appendStr(b, ev.ToolInput)
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
	return binary.AppendUvarint(b, uint64(ev.Line))
}

func readEvent(r *cacheReader) history.Event {
	ev := history.Event{Seq: r.int(), Window: r.str(), Kind: history.Kind(r.str()), Role: history.Role(r.str()),
		Text: r.str(), ToolName: r.str(), ToolID: r.str(), ToolInput: r.str()}
	ev.IsError = r.byte() == 1
	ev.PairSeq = r.int()
	if t := r.int(); t != 0 {
		ev.Time = time.Unix(0, t)
	}
	ev.Line = int(r.uint())
	return ev
}

// cloneEvent copies an event's strings out of a mapping.
func cloneEvent(ev history.Event) history.Event {
	ev.Window = strings.Clone(ev.Window)
	ev.Kind = history.Kind(strings.Clone(string(ev.Kind)))
	ev.Role = history.Role(strings.Clone(string(ev.Role)))
	ev.Text = strings.Clone(ev.Text)
	ev.ToolName = strings.Clone(ev.ToolName)
	ev.ToolID = strings.Clone(ev.ToolID)
	ev.ToolInput = strings.Clone(ev.ToolInput)
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
