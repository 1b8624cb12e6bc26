// Package claude is the Claude Code harness: it decodes the JSONL
// transcripts Claude Code persists under ~/.claude/projects into the
// harness-neutral history model, and lists those sessions.
package claude

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/shared/history"
)

// Decoder decodes Claude Code main-session transcripts. The zero value is
// ready to use.
//
// Decoding takes two passes over the file: the first keeps only the graph
// (uuids, links, line numbers, seqs: tens of bytes per row) and selects the
// branch; the second streams the selected rows' text to the EmitFunc. Memory
// is therefore bounded by the row count and the longest line, not by the
// text in the file.
type Decoder struct{}

var _ history.Decoder = Decoder{}

// refusal is the decoder's one error: the transcript cannot be projected as
// it is. line is 0 when the refusal concerns the file as a whole; retry is
// true when it may clear by itself (a head the host reported that is not on
// disk yet).
func refusal(path string, line int, retry bool, reason string) *history.Refusal {
	return &history.Refusal{Harness: Name, Path: path, Line: line, Reason: reason, Retry: retry}
}

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

// sessionID is the id windows are named after: the session's own (a fork
// uses its new id), else the file name.
func sessionID(sess history.Session) string {
	if sess.ID != "" {
		return sess.ID
	}
	return strings.TrimSuffix(filepath.Base(sess.Path), ".jsonl")
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

// projection is the result of selecting a branch on a graph.
type projection struct {
	selected []bool
	ords     []ord
	head     int32
	gaps     []gap // in first-seen order
	pairs    map[int64]int64
}

type gap struct {
	missing int32
	line    int32 // the row that needed it
}

// selectHead picks the head: the one the host reported, or offline the last
// non-attachment leaf in transcript order, else the last leaf.
func (g *graph) selectHead(want string) (int32, error) {
	if want != "" {
		i, ok := g.lookup(want)
		if !ok || !g.nodes.at(i).present {
			return 0, refusal(g.path, 0, true, fmt.Sprintf("the live head %s is not on disk yet (Claude may still be writing it); retry shortly", want))
		}
		return i, nil
	}
	children := make([]int32, g.nodes.len())
	for k := range g.nodes.len() {
		n := g.nodes.at(int32(k))
		if n.present && n.parent != noNode {
			children[n.parent]++
		}
	}
	for _, bl := range g.links {
		if bl.logical != noNode {
			children[bl.logical]++
		}
	}
	// Leaves in preference order: real leaves before the dangling ends of
	// parallel tool calls (they are part of the branch they hang off, not a
	// branch of their own), non-attachments before attachments, then the
	// last in transcript order.
	const (
		realRow = iota
		realAttach
		auxRow
		auxAttach
		ranks
	)
	var best [ranks]int32
	for r := range best {
		best[r] = noNode
	}
	for i := range g.nodes.len() {
		n := g.nodes.at(int32(i))
		if !n.present || children[i] > 0 {
			continue
		}
		r := realRow
		if g.danglingSibling(int32(i), children) {
			r = auxRow
		}
		if n.attach {
			r++
		}
		if best[r] == noNode || n.lastLine > g.nodes.at(best[r]).lastLine {
			best[r] = int32(i)
		}
	}
	for _, b := range best {
		if b != noNode {
			return b, nil
		}
	}
	for k := range g.nodes.len() {
		n := g.nodes.at(int32(k))
		if n.present {
			return 0, refusal(g.path, 0, false, "no leaf row to select as the head (every row has a child: the links form a cycle)")
		}
	}
	return 0, refusal(g.path, 0, false, "no conversation rows: nothing to read yet")
}

// siblingOf reports whether row c belongs with its parent x as part of the
// same model response: another block of the same API message, or the
// results of x's calls (see addParallelSiblings).
func (g *graph) siblingOf(c, x int32) bool {
	cn, xn := g.nodes.at(c), g.nodes.at(x)
	if !xn.present || xn.msgID == 0 {
		return false
	}
	return cn.msgID == xn.msgID || (cn.user && g.answersOnly(c, x))
}

// danglingSibling reports whether leaf i ends a chain of parallel-call
// siblings that hangs off a row with another child: Claude Code continues
// the conversation from one of a response's parallel results, leaving the
// other calls' rows as leaves.
func (g *graph) danglingSibling(i int32, children []int32) bool {
	for steps := 0; steps < g.nodes.len(); steps++ {
		x := g.nodes.at(i).parent
		if x == noNode || !g.siblingOf(i, x) {
			return false
		}
		if children[x] > 1 {
			return true
		}
		i = x
	}
	return false
}

// project selects the active branch from head and resolves windows.
func (g *graph) project(head int32) (*projection, error) {
	p := &projection{selected: make([]bool, g.nodes.len()), head: head}
	walkMark := make([]int32, g.nodes.len())
	walk := int32(0)
	gapSeen := map[int32]bool{}
	addGap := func(missing, child int32) {
		if !gapSeen[missing] {
			gapSeen[missing] = true
			p.gaps = append(p.gaps, gap{missing: missing, line: g.nodes.at(child).lastLine})
		}
	}
	var starts []int32
	var preserved [][2]int32
	starts = append(starts, head)
	// Walk a chain of latest parentUuid links; boundaries queue their
	// logical parents and preserved segments.
	for len(starts) > 0 || len(preserved) > 0 {
		if len(starts) == 0 {
			seg := preserved[0]
			preserved = preserved[1:]
			walk++
			for n := seg[1]; n != noNode && g.nodes.at(n).present && !p.selected[n]; n = g.nodes.at(n).parent {
				if walkMark[n] == walk {
					return nil, g.refuse(int(g.nodes.at(n).lastLine), "parentUuid links form a cycle through %s", g.uuidOf(n))
				}
				walkMark[n] = walk
				p.selected[n] = true
				if n == seg[0] {
					break
				}
			}
			continue
		}
		n := starts[len(starts)-1]
		starts = starts[:len(starts)-1]
		walk++
		child := noNode
		for n != noNode {
			if !g.nodes.at(n).present {
				if child != noNode {
					addGap(n, child)
				}
				break
			}
			if walkMark[n] == walk {
				return nil, g.refuse(int(g.nodes.at(n).lastLine), "parentUuid links form a cycle through %s", g.uuidOf(n))
			}
			if p.selected[n] {
				break
			}
			walkMark[n] = walk
			p.selected[n] = true
			if g.nodes.at(n).boundary {
				bl := g.links[n]
				if l := bl.logical; l != noNode {
					if g.nodes.at(l).present {
						starts = append(starts, l)
					} else {
						addGap(l, n)
					}
				}
				if bl.presTail != noNode {
					// Never-persisted preservation uuids are skipped silently.
					if g.nodes.at(bl.presTail).present {
						preserved = append(preserved, [2]int32{bl.presHead, bl.presTail})
					}
				}
			}
			child = n
			n = g.nodes.at(n).parent
		}
	}
	g.addParallelSiblings(p)
	if err := g.resolveOrdinals(p); err != nil {
		return nil, err
	}
	g.pair(p)
	return p, nil
}

// addParallelSiblings brings back the rows of parallel tool calls. Claude
// Code writes one assistant row per content block, chained, and each tool
// result as a child of the row holding its call; the next turn continues
// from one result only, so the other calls and results of the same response
// hang off the branch as siblings (observed in recorded sessions). A selected
// assistant row's children that belong to the same API message, and user
// rows that only answer a selected row's calls, are part of the branch.
func (g *graph) addParallelSiblings(p *projection) {
	// Children by latest parent link, in compressed form: tens of bytes per
	// row would double the first pass's memory.
	start := make([]int32, g.nodes.len()+1)
	for k := range g.nodes.len() {
		n := g.nodes.at(int32(k))
		if n.present && n.parent != noNode {
			start[n.parent+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	kids := make([]int32, start[len(start)-1])
	fill := append([]int32(nil), start[:g.nodes.len()]...)
	for i := range g.nodes.len() {
		n := g.nodes.at(int32(i))
		if n.present && n.parent != noNode {
			kids[fill[n.parent]] = int32(i)
			fill[n.parent]++
		}
	}
	var queue []int32
	for i := range g.nodes.len() {
		if p.selected[i] {
			queue = append(queue, int32(i))
		}
	}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		xn := g.nodes.at(x)
		if xn.msgID == 0 {
			continue // only assistant rows have parallel siblings
		}
		for _, c := range kids[start[x]:start[x+1]] {
			if p.selected[c] {
				continue
			}
			if g.siblingOf(c, x) {
				p.selected[c] = true
				queue = append(queue, c)
			}
		}
	}
}

// answersOnly reports whether row c holds tool results only, each answering a
// call made in row x.
func (g *graph) answersOnly(c, x int32) bool {
	cn, xn := g.nodes.at(c), g.nodes.at(x)
	if cn.nTools == 0 || xn.nTools == 0 {
		return false
	}
	calls := g.tools[xn.toolStart : xn.toolStart+xn.nTools]
	for _, r := range g.tools[cn.toolStart : cn.toolStart+cn.nTools] {
		if r.use {
			return false
		}
		found := false
		for _, u := range calls {
			if u.use && u.id == r.id {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// dependency is the node whose window decides n's: the logical parent of a
// boundary, the parent of anything else. ok is false at a root.
func (g *graph) dependency(n int32) (int32, bool) {
	nd := g.nodes.at(n)
	if _, ok := g.boots[n]; ok {
		return noNode, false
	}
	if nd.boundary {
		if g.detached[n] {
			return noNode, false
		}
		l := g.logical(n)
		return l, l != noNode
	}
	return nd.parent, nd.parent != noNode
}

func (g *graph) resolveOrdinals(p *projection) error {
	const (
		unvisited = 0
		visiting  = 1
		done      = 2
	)
	state := make([]uint8, g.nodes.len())
	p.ords = make([]ord, g.nodes.len())
	compute := func(n int32) {
		nd := g.nodes.at(n)
		if b, ok := g.boots[n]; ok {
			p.ords[n] = ord{known: true, n: b}
			return
		}
		if g.detached[n] {
			// The history before this boundary is not in the file.
			p.ords[n] = ord{missing: g.logical(n)}
			return
		}
		dep, ok := g.dependency(n)
		var base ord
		switch {
		case !ok:
			// A true root opens window 0; a boundary with no logical parent
			// opens the window after an empty one.
			base = ord{known: true, n: 0}
			if nd.boundary {
				base.n = 1
			}
			p.ords[n] = base
			return
		case !g.nodes.at(dep).present:
			p.ords[n] = ord{missing: dep}
			return
		default:
			base = p.ords[dep]
		}
		if nd.boundary && base.known {
			base.n++
		}
		p.ords[n] = base
	}
	var stack []int32
restart:
	for i := range g.nodes.len() {
		if !p.selected[i] || state[i] == done {
			continue
		}
		stack = append(stack[:0], int32(i))
		state[i] = visiting
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			dep, ok := g.dependency(x)
			if ok && g.nodes.at(dep).present && state[dep] != done {
				if state[dep] == visiting {
					// A fork copies a compacted chain from its last boundary
					// and relinks the preserved rows after the summary, so
					// the boundary's logicalParentUuid names its own
					// descendant (observed with Claude Code 2.1.332). Such a
					// logical edge leads to history this file does not have:
					// cut it and resolve again. Any other loop is damage.
					b := g.logicalEdgeIn(stack, dep)
					if b == noNode {
						return g.refuse(int(g.nodes.at(dep).lastLine), "parent links form a cycle through %s", g.uuidOf(dep))
					}
					g.detached[b] = true
					clear(state)
					goto restart
				}
				state[dep] = visiting
				stack = append(stack, dep)
				continue
			}
			compute(x)
			state[x] = done
			stack = stack[:len(stack)-1]
		}
	}
	return nil
}

// logicalEdgeIn returns a boundary on the cycle stack[k..] (where
// stack[k] == dep) whose window comes from its logical parent, or noNode.
func (g *graph) logicalEdgeIn(stack []int32, dep int32) int32 {
	for k := len(stack) - 1; k >= 0; k-- {
		x := stack[k]
		if g.nodes.at(x).boundary && !g.detached[x] && g.logical(x) != noNode {
			if _, boot := g.boots[x]; !boot {
				return x
			}
		}
		if x == dep {
			break
		}
	}
	return noNode
}

// pair links tool results to calls by tool id over seq order, among the
// selected rows only: a pending call stays unpaired.
func (g *graph) pair(p *projection) {
	p.pairs = make(map[int64]int64)
	open := make(map[string]int64)
	for _, t := range g.tools {
		if !p.selected[t.node] {
			continue
		}
		if t.use {
			open[t.id] = t.seq
			continue
		}
		if call, ok := open[t.id]; ok {
			p.pairs[call] = t.seq
			p.pairs[t.seq] = call
			delete(open, t.id)
		}
	}
}

func (g *graph) window(o ord) string {
	if o.known {
		return Name + ":" + g.sid + ":" + strconv.Itoa(int(o.n))
	}
	return Name + ":" + g.sid + ":unknown:" + g.uuidOf(o.missing)
}

func (g *graph) summary(p *projection) history.Summary {
	var s history.Summary
	known := map[int32]bool{}
	var unknown []int32
	seenUnknown := map[int32]bool{}
	// Walk selected rows in seq order so unknown segments appear in the
	// order their first event has.
	order := g.selectedBySeq(p)
	for _, i := range order {
		o := p.ords[i]
		if o.known {
			known[o.n] = true
		} else if !seenUnknown[o.missing] {
			seenUnknown[o.missing] = true
			unknown = append(unknown, o.missing)
		}
	}
	ks := make([]int, 0, len(known))
	for k := range known {
		ks = append(ks, int(k))
	}
	sort.Ints(ks)
	for _, k := range ks {
		s.Windows = append(s.Windows, g.window(ord{known: true, n: int32(k)}))
	}
	for _, m := range unknown {
		w := g.window(ord{missing: m})
		s.Windows = append(s.Windows, w)
		s.Notes = append(s.Notes, history.ProjectionNote{Kind: history.NoteUnknownSegment, Ref: w,
			Message: "events without a path to a root or retained boot; their window ordinal is unknown"})
	}
	for b := range g.detached {
		if !p.selected[b] {
			continue
		}
		l := g.uuidOf(g.logical(b))
		s.Notes = append(s.Notes, history.ProjectionNote{Kind: history.NoteGap, Line: int(g.nodes.at(b).lastLine), Ref: l,
			Message: "the history before compact boundary " + g.uuidOf(b) + " is not in this file (its logical parent " + l + " was copied after it, as a fork does)"})
	}
	for _, gp := range p.gaps {
		s.Notes = append(s.Notes, history.ProjectionNote{Kind: history.NoteGap, Line: int(gp.line), Ref: g.uuidOf(gp.missing),
			Message: "ancestor " + g.uuidOf(gp.missing) + " is not in the transcript"})
	}
	ho := p.ords[p.head]
	s.HeadWindow = g.window(ho)
	s.HeadKnown = ho.known
	if ho.known {
		s.HeadOrdinal = int(ho.n)
	}
	return s
}

func (g *graph) selectedBySeq(p *projection) []int32 {
	var order []int32
	for i := range g.nodes.len() {
		if p.selected[i] {
			order = append(order, int32(i))
		}
	}
	sort.Slice(order, func(a, b int) bool { return g.nodes.at(order[a]).seq < g.nodes.at(order[b]).seq })
	return order
}

// Decode implements history.Decoder.
func (Decoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	sid := sessionID(sess)
	f, err := os.Open(sess.Path)
	if err != nil {
		return history.Summary{}, fmt.Errorf("claude transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return history.Summary{}, fmt.Errorf("claude transcript: %w", err)
	}
	// Both passes read through one jsonl.File: a transcript is read once,
	// into a pooled buffer, unless it is too large to hold.
	lf := jsonl.NewFile(f, fi.Size())
	defer lf.Release()
	g, err := readGraph(lf, fi.Size(), sess.Path, sid)
	if err != nil {
		return history.Summary{}, err
	}
	defer g.nodes.release()
	head, err := g.selectHead(opts.Head)
	if err != nil {
		return history.Summary{}, err
	}
	p, err := g.project(head)
	if err != nil {
		return history.Summary{}, err
	}
	sum := g.summary(p)
	sum.Notice = IncompleteHistoryNotice(sum)
	order := g.selectedBySeq(p)
	// The graph's uuid index is no longer needed; let it go before the text
	// pass allocates.
	g.byKey, g.byStr = nil, nil
	return sum, g.emitText(lf, p, order, emit)
}

// emitText is the second pass: it reads the bytes the first pass read again
// (from memory, for a transcript read whole) and emits the selected rows'
// events in seq order.
func (g *graph) emitText(f *jsonl.File, p *projection, order []int32, emit history.EmitFunc) error {
	if len(order) == 0 {
		return nil
	}
	limit := g.size
	if g.lastOK {
		limit = g.read // the complete final line is read too
	}
	lr := newLineReader(f, limit, g.path)
	stable := f.Stable()        // the lines are the bytes the first pass validated
	names := map[int64]string{} // open calls' tool names, for their results
	k := 0
	for k < len(order) {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return g.refuse(0, "the transcript changed between passes (row %s at line %d is gone); retry", g.uuidOf(order[k]), g.nodes.at(order[k]).firstLine)
		}
		if err != nil {
			return err
		}
		idx := order[k]
		if lr.line != int(g.nodes.at(idx).firstLine) {
			continue
		}
		k++
		events, err := g.rowEvents(line, idx, p, names, stable)
		if err != nil {
			return err
		}
		for _, ev := range events {
			if err := emit(ev); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *graph) rowEvents(raw []byte, idx int32, p *projection, names map[int64]string, trusted bool) ([]history.Event, error) {
	n := g.nodes.at(idx)
	line := int(n.firstLine)
	var fr fullRecord
	var msg decodedContent
	hasMsg, oneP := false, false
	if trusted {
		hasMsg, oneP = parseRowTrusted(raw, &fr, &msg)
	}
	if !oneP {
		fr = fullRecord{}
		if err := parseFullOf(raw, &fr, trusted); err != nil {
			return nil, g.refuse(line, "the transcript changed between passes (%v); retry", err)
		}
	}
	if want := g.uuidOf(idx); fr.UUID != want {
		return nil, g.refuse(line, "the transcript changed between passes (expected row %s, found %q); retry", want, fr.UUID)
	}
	var t time.Time
	if fr.Timestamp != "" {
		t, _ = time.Parse(time.RFC3339Nano, fr.Timestamp)
	}
	w := g.window(p.ords[idx])
	env := history.Event{Seq: n.seq, Window: w, Time: t, Line: line}
	var blocks []fullBlock
	var err error
	switch fr.Type {
	case typeUser, typeAssistant:
		env.Kind, env.Role = history.KindMessage, history.Role(fr.Type)
		if fr.IsCompactSummary {
			env.Kind, env.Role = history.KindNotice, history.RoleSystem
		}
		if oneP {
			if hasMsg {
				env.Text, blocks, err = msg.text, msg.blocks, msg.err
			}
		} else {
			env.Text, blocks, err = contentText(fr.MessageContent)
		}
	case typeSystem:
		env.Kind, env.Role = history.KindNotice, history.RoleSystem
		env.Text, _, err = contentText(fr.Content)
	case typeAttachment:
		// Attachments are engine context (reminders, files, boots), not
		// what the person wrote, even when sent with the user role: a
		// "user" role filter finds the person's messages.
		env.Kind, env.Role = history.KindAttachment, history.RoleSystem
		env.Text, err = renderedText(fr.Rendered)
	}
	if err != nil {
		return nil, g.refuse(line, "invalid %s row: %v", fr.Type, err)
	}
	events := []history.Event{env}
	seq := n.seq
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			seq++
			names[seq] = b.Name
			events = append(events, history.Event{Seq: seq, Window: w, Kind: history.KindToolUse, Role: history.RoleTool,
				ToolName: b.Name, ToolID: b.ID, ToolInput: compactJSON(b.Input), PairSeq: p.pairs[seq], Time: t, Line: line})
		case "tool_result":
			seq++
			var text string
			var err error
			if b.decoded != nil { // decoded in the row's one pass
				text, err = b.decoded.text, b.decoded.err
			} else {
				text, _, err = contentText(b.Content)
			}
			if err != nil {
				return nil, g.refuse(line, "invalid tool_result content: %v", err)
			}
			call := p.pairs[seq]
			name := names[call]
			delete(names, call)
			events = append(events, history.Event{Seq: seq, Window: w, Kind: history.KindToolResult, Role: history.RoleTool,
				ToolName: name, ToolID: b.ToolUseID, Text: text, IsError: b.IsError, PairSeq: call, Time: t, Line: line})
		}
	}
	if seq != n.seq+int64(n.nTools) {
		return nil, g.refuse(line, "the transcript changed between passes (row %s has a different number of tool blocks); retry", g.uuidOf(idx))
	}
	return events, nil
}
