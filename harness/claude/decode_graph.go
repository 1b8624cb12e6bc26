package claude

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"sync"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/shared/history"
)

// The first pass: the graph of rows (uuids, links, line numbers, seqs),
// built without keeping any row's text.

// noNode is the node index of "no node": a root's parent, a row without a
// logical parent.
const noNode = int32(-1)

// node is one uuid the transcript mentions: a row that is present, or an
// ancestor that some row names but the file lacks.
type node struct {
	key       uuidKey // canonical uuids; others are in graph.strs
	present   bool
	boundary  bool
	attach    bool
	user      bool
	msgID     uint64 // hash of an assistant row's message.id, 0 if none
	toolStart int32  // index of the row's first block in graph.tools
	parent    int32  // latest recorded parentUuid, noNode for null
	logical   int32  // compact boundary's logicalParentUuid
	presHead  int32  // compact boundary's preserved segment
	presTail  int32
	boot      int32 // ordinal named by a retained notesoup boot, -1 if none
	firstLine int32 // line of the first occurrence (the one that allocated)
	lastLine  int32 // line of the latest occurrence
	nTools    int32
	seq       int64
	digest    uint64
}

// uuidKey is a canonical (lowercase 8-4-4-4-12) uuid's 16 bytes.
type uuidKey [16]byte

// parseUUID parses the canonical lowercase form only, so String gives back
// the exact text; any other spelling is kept as a string instead.
func parseUUID(s string) (uuidKey, bool) {
	var k uuidKey
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := lowerHex(s[i])
		lo, ok2 := lowerHex(s[i+1])
		if !ok1 || !ok2 {
			return k, false
		}
		k[j] = hi<<4 | lo
		j++
		i += 2
	}
	return k, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// String formats the key in canonical form.
func (k uuidKey) String() string {
	const hexDigits = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, v := range k {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[v>>4], hexDigits[v&0xf]
		j += 2
	}
	return string(b[:])
}

// nodeChunkBits sizes the chunks nodes are stored in: appending to one
// slice would copy it at every doubling and hold old and new arrays at
// once, which for a large transcript is the decode's peak memory.
const nodeChunkBits = 12

// nodeStore is an append-only array of nodes in fixed-size chunks.
type nodeStore struct {
	chunks [][]node
	n      int
}

func (s *nodeStore) len() int { return s.n }

func (s *nodeStore) at(i int32) *node {
	return &s.chunks[i>>nodeChunkBits][i&(1<<nodeChunkBits-1)]
}

func (s *nodeStore) add(nd node) int32 {
	if s.n>>nodeChunkBits == len(s.chunks) {
		c, ok := nodeChunks.Get().(*[]node)
		if !ok {
			c = new([]node)
			*c = make([]node, 0, 1<<nodeChunkBits)
		}
		s.chunks = append(s.chunks, (*c)[:0])
	}
	c := &s.chunks[len(s.chunks)-1]
	*c = append(*c, nd)
	s.n++
	return int32(s.n - 1)
}

// nodeChunks recycles node chunks between decodes: a chunk is a few hundred
// KiB, and allocating one for every small transcript was most of what a
// decode allocated.
var nodeChunks sync.Pool

// release hands the chunks back for the next decode; the store is empty
// after it.
func (s *nodeStore) release() {
	for i := range s.chunks {
		c := s.chunks[i][:0]
		nodeChunks.Put(&c)
	}
	s.chunks, s.n = nil, 0
}

// ord is a resolved window: a known ordinal, or the missing uuid that cut
// the path to a root.
type ord struct {
	known   bool
	n       int32
	missing int32
}

type graph struct {
	path  string
	sid   string
	nodes nodeStore
	// Canonical uuids are indexed by their 16 bytes (no string kept per
	// row); anything else by its text.
	byKey map[uuidKey]int32
	byStr map[string]int32
	strs  map[int32]string
	// Rare per-row facts live in maps rather than in every node.
	links map[int32]boundaryLinks // compact boundaries
	boots map[int32]int32         // ordinal named by a retained notesoup boot
	// detached boundaries' logical parents turned out to be their own
	// descendants (a fork's relinked copy): their earlier history is absent.
	detached map[int32]bool
	tools    []toolRef // every tool block of every present row, seq order
	skips    []skipped // lines over the bound, in file order
	nextSeq  int64
	size     int64 // bytes of complete lines read in pass 1
	read     int64 // bytes read in pass 1, a final unterminated line included
	lines    int   // lines read in pass 1 (including a tolerated final line)
	lastOK   bool  // the final unterminated line was a complete record
}

type toolRef struct {
	node int32
	seq  int64
	use  bool
	id   string
}

// skipped is a line over MaxLineBytes: shown as a notice at its own
// address (allocated in file order, as a row's), whichever branch it was
// on, since its row cannot be read to tell.
type skipped struct {
	line int
	seq  int64
}

// boundaryLinks are a compact boundary's extra edges.
type boundaryLinks struct {
	logical  int32 // logicalParentUuid, noNode if none
	presHead int32 // recorded preserved segment, noNode if none
	presTail int32
}

func (g *graph) id(uuid string) int32 {
	if k, ok := parseUUID(uuid); ok {
		if i, ok := g.byKey[k]; ok {
			return i
		}
		i := g.nodes.add(node{key: k, parent: noNode})
		g.byKey[k] = i
		return i
	}
	if i, ok := g.byStr[uuid]; ok {
		return i
	}
	i := g.nodes.add(node{parent: noNode})
	g.byStr[uuid] = i
	g.strs[i] = uuid
	return i
}

// lookup finds a uuid without adding it.
func (g *graph) lookup(uuid string) (int32, bool) {
	if k, ok := parseUUID(uuid); ok {
		i, ok := g.byKey[k]
		return i, ok
	}
	i, ok := g.byStr[uuid]
	return i, ok
}

func (g *graph) uuidOf(i int32) string {
	if s, ok := g.strs[i]; ok {
		return s
	}
	return g.nodes.at(i).key.String()
}

func (g *graph) logical(i int32) int32 {
	if l, ok := g.links[i]; ok {
		return l.logical
	}
	return noNode
}

func (g *graph) refuse(line int, format string, args ...any) error {
	return refusal(g.path, line, false, fmt.Sprintf(format, args...))
}

// bootProbe is the cheap byte test before a row is parsed for a boot marker.
var bootProbe = []byte("notesoup-boot")

// hasBootProbe is bytes.Contains(raw, bootProbe), anchored on the probe's
// rarest byte: bytes.Index anchors on its first, and "n" is in every "\n"
// escape of a tool output, so it stopped every few dozen bytes.
func hasBootProbe(raw []byte) bool {
	const at = len("notesoup-") // the "b"
	for i := at; i < len(raw); {
		k := bytes.IndexByte(raw[i:], 'b')
		if k < 0 {
			return false
		}
		i += k
		if bytes.HasPrefix(raw[i-at:], bootProbe) {
			return true
		}
		i++
	}
	return false
}

// readGraph is the first pass.
func readGraph(f *jsonl.File, size int64, path, sid string) (*graph, error) {
	g := &graph{path: path, sid: sid, byKey: map[uuidKey]int32{}, byStr: map[string]int32{}, strs: map[int32]string{},
		links: map[int32]boundaryLinks{}, boots: map[int32]int32{}, detached: map[int32]bool{}, nextSeq: 1}
	lr := newLineReader(f, size, path)
	for {
		line, terminated, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == errSkipped {
			if !terminated {
				// Still being written: like a torn line, not counted.
				g.lines = lr.line - 1
				break
			}
			g.lines = lr.line
			g.skips = append(g.skips, skipped{line: lr.line, seq: g.nextSeq})
			g.nextSeq++
			continue
		}
		if err != nil {
			return nil, err
		}
		g.lines = lr.line
		if blank(line) {
			continue
		}
		var rec metaRecord
		if err := parseMeta(line, &rec); err != nil {
			if !terminated {
				// A write in progress: tolerated, and not counted, so the
				// second pass stops before it too.
				g.lines = lr.line - 1
				break
			}
			return nil, g.refuse(lr.line, "malformed JSONL line: %v", err)
		}
		if rec.Type == "" {
			return nil, g.refuse(lr.line, "record is not an object with a string type")
		}
		if !terminated {
			g.lastOK = true
		}
		if !isRowType(rec.Type) {
			continue
		}
		if err := g.addRow(&rec, line, lr.line); err != nil {
			return nil, err
		}
	}
	g.size, g.read = lr.consumed, lr.r.Off
	return g, nil
}

func (g *graph) addRow(rec *metaRecord, raw []byte, line int) error {
	if p := rec.schemaProblem(); p != "" {
		return g.refuse(line, "invalid %s row: %s", rec.Type, p)
	}
	if rec.IsSidechain {
		return g.refuse(line, "sidechain row in a main transcript (subagent rows live in subagents/agent-*.jsonl)")
	}
	if rec.SessionID != nil && *rec.SessionID != g.sid {
		return g.refuse(line, "row of session %q in the transcript of session %q", *rec.SessionID, g.sid)
	}
	i := g.id(*rec.UUID)
	parent := noNode
	if rec.ParentUUID != nil && *rec.ParentUUID != "" {
		if *rec.ParentUUID == *rec.UUID {
			return g.refuse(line, "row %s is its own parent (a cycle)", *rec.UUID)
		}
		parent = g.id(*rec.ParentUUID)
	}
	n := g.nodes.at(i)
	dg := rec.digest()
	if n.present {
		if n.digest != dg {
			return g.refuse(line, "row %s repeats line %d with different content (conflicting duplicate)", g.uuidOf(i), n.firstLine)
		}
		// A repeat keeps its address; only its latest link counts.
		n.parent = parent
		n.lastLine = int32(line)
		return nil
	}
	n.present = true
	n.digest = dg
	n.parent = parent
	n.firstLine, n.lastLine = int32(line), int32(line)
	n.attach = rec.Type == typeAttachment
	n.user = rec.Type == typeUser
	n.seq = g.nextSeq
	g.nextSeq++
	n.toolStart = int32(len(g.tools))
	if rec.Type == typeAssistant && rec.Message.ID != "" {
		h := fnv.New64a()
		h.Write([]byte(rec.Message.ID))
		n.msgID = h.Sum64() | 1 // never 0, which means "none"
	}
	if rec.Message != nil {
		for _, t := range rec.Message.Content.tools {
			g.tools = append(g.tools, toolRef{node: i, seq: g.nextSeq, use: t.use, id: t.id})
			g.nextSeq++
			n.nTools++
		}
	}
	if rec.Type == typeSystem && rec.Subtype == subtypeCompactBoundary {
		n.boundary = true
		bl := boundaryLinks{logical: noNode, presHead: noNode, presTail: noNode}
		if rec.LogicalParentUUID != nil && *rec.LogicalParentUUID != "" {
			bl.logical = g.id(*rec.LogicalParentUUID)
		}
		if rec.CompactMetadata != nil && rec.CompactMetadata.PreservedSegment != nil {
			ps := rec.CompactMetadata.PreservedSegment
			if ps.HeadUUID != "" && ps.TailUUID != "" {
				bl.presHead, bl.presTail = g.id(ps.HeadUUID), g.id(ps.TailUUID)
			}
		}
		g.links[i] = bl
	}
	if (rec.Type == typeUser || rec.Type == typeAttachment) && hasBootProbe(raw) {
		text, err := rowText(raw)
		if err != nil {
			return g.refuse(line, "invalid %s row: %v", rec.Type, err)
		}
		if _, _, o, ok := history.ParseBootMarker(text); ok {
			g.boots[i] = int32(o)
		}
	}
	return nil
}

// rowText is the visible text of a user or attachment row.
func rowText(raw []byte) (string, error) {
	var fr fullRecord
	if err := parseFull(raw, &fr); err != nil {
		return "", err
	}
	if fr.Type == typeAttachment {
		return renderedText(fr.Rendered)
	}
	t, _, err := contentText(fr.MessageContent)
	return t, err
}
