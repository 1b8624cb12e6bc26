// Package pi is the Pi coding agent's side of notesoup's cross-harness
// history: it finds Pi session files and decodes them into the harness-neutral
// events of shared/history.
package pi

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sort"
	"strconv"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/history"
)

// maxPairWalk bounds how far up the tree a tool result looks for the
// assistant message that made its call. Pi chains results directly after
// their assistant message (pi.md §3.3), so real walks are a few steps; the
// bound keeps a hostile file from making pairing quadratic.
const maxPairWalk = 4096

// Decoder decodes Pi session files (versions 1 to 3). The zero value is
// ready to use and safe for concurrent use.
type Decoder struct{}

var _ history.Decoder = Decoder{}

// Decode reads the session file at sess.Path in two passes and emits the
// events of the active branch in seq order. The first pass indexes the tree
// (ids, links, addresses, tool pairing) without keeping any text; the second
// reads the same committed bytes again and emits the selected entries. A
// file of up to jsonl.WholeBytes is read once, into a pooled buffer both
// passes share; a larger one is streamed twice. Memory grows with the number
// of entries and that bound, not with the size of the file.
func (Decoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	f, fi, err := rawread.Open(sess.Path)
	if err != nil {
		return history.Summary{}, fmt.Errorf("pi history: open session file: %w", err)
	}
	defer f.Close()
	return decode(f, fi.Size(), sess.Path, opts, emit)
}

// Parent link states of a node.
const (
	parentRoot    = -1 // parentId null: a root of the tree
	parentMissing = -2 // parentId names an entry the file does not hold
)

// node is the in-memory tree metadata of one entry: no text, no id (the id
// lives once, as a key of the id index). It is kept small because a long
// session has hundreds of thousands of entries.
type node struct {
	parent int32 // index of the parent node, parentRoot or parentMissing
	line   int32
	// hash is a digest of the line, to recognise repeats and detect
	// rewrites; of a file read whole, the line's offset instead (a repeat
	// is compared with the line itself, which is cheaper than hashing
	// every line).
	hash uint64
	seq  int64 // first address, 0 when the entry allocates none
	nseq int32 // addresses allocated: message + one per tool call
	kind entryKind
	ord  int32 // window ordinal; -1 while unresolved or unknown
	seg  int32 // index into index.missing for unknown segments, -1 if known
	// gap is the index into index.missing of the absent parent this entry
	// names, -1 if none. It outlives seg: a retained boot re-anchors its
	// window (seg -1) but the history before it is still missing.
	gap    int32
	boot   int32 // ordinal named by a retained notesoup boot marker, -1 if none
	state  uint8 // link resolution: 0 new, 1 on the walk, 2 done
	onPath bool
}

// callRef locates a toolCall block: the assistant node and its position.
type callRef struct {
	node int32
	pos  int32
}

// skip is a line too long to read (over jsonl.MaxLineBytes): it is shown
// as a notice at its own address, so the rest of the session stays
// readable and later addresses do not move once it is complete.
type skip struct {
	line int
	seq  int64
}

// resultRef is a tool result to pair once the active path is known.
type resultRef struct {
	node   int32
	callID string
}

// index is everything the first pass learns.
type index struct {
	path      string
	sessionID string
	version   int
	nodes     []node
	ids       idIndex
	forward   map[int32]string     // node -> parent id not seen before it
	calls     map[string][]callRef // call id -> calls not answered yet
	results   []resultRef          // every tool result, in file order
	skips     []skip               // lines over the bound, in file order
	pairs     map[int64]int64      // seq -> paired seq, both directions
	missing   []string             // parent ids that are not in the file
	committed int64                // bytes of committed lines the index covers
	seed      maphash.Seed
}

func (ix *index) refuse(line int, format string, args ...any) error {
	return refusal(ix.path, line, false, fmt.Sprintf(format, args...))
}

// refuseRetry is a refusal about a write in progress.
func (ix *index) refuseRetry(line int, format string, args ...any) error {
	return refusal(ix.path, line, true, fmt.Sprintf(format, args...))
}

// decode runs both passes over r.
func decode(r io.ReaderAt, size int64, path string, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	// Both passes read through one jsonl.File: a session file is read
	// once, into a pooled buffer, unless it is too large to hold.
	f := jsonl.NewFile(r, size)
	defer f.Release()
	ix, err := buildIndex(f, size, path)
	if err != nil {
		return refusalSummary(err), err
	}
	head, err := ix.resolve(opts.Head)
	if err != nil {
		return refusalSummary(err), err
	}
	sum := ix.summary(head)
	if err := ix.emit(f, sum.HeadWindow, emit); err != nil {
		var re *history.Refusal
		if errors.As(err, &re) {
			sum.Notes = append(sum.Notes, refusalSummary(err).Notes...)
		}
		return sum, err
	}
	return sum, nil
}

// refusalSummary reports a refusal as a projection note too, so a caller
// that only renders notes still says why nothing is shown.
func refusalSummary(err error) history.Summary {
	var re *history.Refusal
	if !errors.As(err, &re) {
		return history.Summary{}
	}
	return history.Summary{Notes: []history.ProjectionNote{{Kind: history.NoteRefusal, Message: re.Error(), Line: re.Line}}}
}

// buildIndex is the first pass: validate every committed line, allocate
// addresses in append order and record the tree links.
func buildIndex(f *jsonl.File, size int64, path string) (*index, error) {
	ix := &index{
		path:    path,
		ids:     newIDIndex(),
		forward: make(map[int32]string),
		calls:   make(map[string][]callRef),
		pairs:   make(map[int64]int64),
		seed:    maphash.MakeSeed(),
	}
	lr := f.Lines(size)
	first, terminated, err := lr.Next()
	if err == io.EOF || (err == nil && !terminated && len(bytes.TrimSpace(first)) == 0) {
		return nil, ix.refuseRetry(0, "the file is empty: Pi writes a session file with its header once the first reply exists; retry when it has one")
	}
	if err != nil {
		return nil, readErr(path, err)
	}
	id, version, _, herr := parseHeader(first)
	if herr != nil {
		if !terminated {
			return nil, ix.refuseRetry(1, "the session header is incomplete (a write in progress?); retry")
		}
		return nil, ix.refuse(1, "%v", herr)
	}
	ix.sessionID, ix.version = id, version
	ix.committed = lr.Off
	whole := f.Whole()
	var seq int64 = 1
	prevV1 := "" // version 1: each entry's parent is the previous entry
	for {
		start := uint64(lr.Off) // where the next line starts
		line, terminated, err := lr.Next()
		if err == io.EOF {
			break
		}
		if long, ok := tooLong(err); ok {
			if !long.Terminated {
				break // still being written, like a torn last line
			}
			ix.skips = append(ix.skips, skip{line: lr.Line, seq: seq})
			seq++
			ix.committed = lr.Off
			continue
		}
		if err != nil {
			return nil, readErr(path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			ix.committed = lr.Off
			continue
		}
		e, perr := parseEntry(line, version, false)
		if perr != nil {
			if !terminated {
				break // torn final line: a write in progress, not yet history
			}
			return nil, ix.refuse(lr.Line, "%v", perr)
		}
		ix.committed = lr.Off
		if version == versionLinear {
			if e.typ == "" || (e.kind == kindTreeOnly && !knownEntryTypes[e.typ]) {
				continue
			}
			// The same migration pi applies (pi.md §3.5), with ids derived
			// from the line so they are stable across reads.
			e.id = "v1:" + strconv.Itoa(lr.Line)
			e.parentID, e.hasParent = prevV1, prevV1 != ""
			prevV1 = e.id
		}
		if e.id == "" {
			continue // an unknown record without an id: nothing links to it
		}
		var h uint64
		if whole != nil {
			h = start
		} else {
			h = maphash.Bytes(ix.seed, line)
		}
		if at, dup := ix.ids.get(e.id); dup {
			if ix.nodes[at].hash == h || whole != nil && bytes.Equal(lineAt(whole, ix.nodes[at].hash), line) {
				continue // a repeated record keeps its first address
			}
			return nil, ix.refuse(lr.Line, "entry id %q conflicts with the different entry of the same id on line %d; the file has been edited or corrupted", e.id, ix.nodes[at].line)
		}
		if len(ix.nodes) >= 1<<31-1 || lr.Line >= 1<<31-1 {
			return nil, ix.refuse(lr.Line, "too many entries for one session file")
		}
		n := node{parent: parentRoot, line: int32(lr.Line), hash: h, kind: e.kind, ord: -1, seg: -1, gap: -1, boot: bootOrdinal(line, &e, version)}
		if e.hasParent {
			// Resolve the usual backward link now; keep the id only for a
			// forward or missing reference, resolved after the read.
			if p, ok := ix.ids.get(e.parentID); ok {
				n.parent = p
			} else {
				ix.forward[int32(len(ix.nodes))] = e.parentID
			}
		}
		at := int32(len(ix.nodes))
		if e.kind != kindTreeOnly {
			n.seq, n.nseq = seq, 1+int32(len(e.calls))
			seq += int64(n.nseq)
		}
		for j, c := range e.calls {
			ix.calls[c.id] = append(ix.calls[c.id], callRef{node: at, pos: int32(j)})
		}
		ix.ids.put(e.id, at)
		ix.nodes = append(ix.nodes, n)
		if e.kind == kindToolResult {
			ix.results = append(ix.results, resultRef{node: at, callID: e.resultID})
		}
	}
	return ix, nil
}

// lineAt returns the line that starts at off in a file read whole, as
// jsonl returns it (no newline, no carriage return before it).
func lineAt(whole []byte, off uint64) []byte {
	line := whole[off:]
	if k := bytes.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	return line
}

// resolve links parents (forward references included), refuses cycles,
// assigns window ordinals, pairs tool results, selects the head and marks the
// active path. It returns the head node, or -1 for a session with no entries.
func (ix *index) resolve(headID string) (int32, error) {
	missingAt := map[string]int32{}
	for i := range ix.nodes {
		parentID, ok := ix.forward[int32(i)]
		if !ok {
			continue
		}
		n := &ix.nodes[i]
		if p, ok := ix.ids.get(parentID); ok {
			n.parent = p
		} else {
			n.parent = parentMissing
			m, ok := missingAt[parentID]
			if !ok {
				m = int32(len(ix.missing))
				ix.missing = append(ix.missing, parentID)
				missingAt[parentID] = m
			}
			n.seg, n.gap = m, m
		}
	}
	ix.forward = nil
	var walk []int32
	for i := range ix.nodes {
		walk = walk[:0]
		cur := int32(i)
		for cur >= 0 && ix.nodes[cur].state != 2 {
			if ix.nodes[cur].state == 1 {
				return -1, ix.refuse(int(ix.nodes[cur].line), "the entry on this line is its own ancestor (a parentId cycle); the file is corrupted")
			}
			ix.nodes[cur].state = 1
			walk = append(walk, cur)
			cur = ix.nodes[cur].parent
		}
		for k := len(walk) - 1; k >= 0; k-- {
			n := &ix.nodes[walk[k]]
			step := int32(0)
			if n.kind == kindCompaction {
				step = 1 // a compaction opens the next window
			}
			switch {
			case n.boot >= 0:
				// A retained boot names its window: it neither advances
				// again nor inherits an unknown ancestry (it re-anchors).
				n.ord, n.seg = n.boot, -1
			case n.parent == parentRoot:
				n.ord = step
			case n.parent == parentMissing:
				// seg already names the missing ancestor
			default:
				p := &ix.nodes[n.parent]
				if p.seg >= 0 {
					n.seg = p.seg
				} else {
					n.ord = p.ord + step
				}
			}
			n.state = 2
		}
	}
	if len(ix.nodes) == 0 {
		if headID != "" {
			return -1, ix.refuseRetry(0, "head entry %q is not in the file yet (the write may lag); retry", headID)
		}
		return -1, nil
	}
	head := int32(len(ix.nodes) - 1) // pi's active leaf on load: the last entry
	if headID != "" {
		h, ok := ix.ids.get(headID)
		if !ok {
			return -1, ix.refuseRetry(0, "head entry %q is not in the file yet (the write may lag); retry", headID)
		}
		head = h
	}
	for cur := head; cur >= 0; cur = ix.nodes[cur].parent {
		ix.nodes[cur].onPath = true
	}
	// Pair among the selected entries only, as the Claude decoder does: a
	// call on the path whose result sits on an abandoned branch has no
	// result to show, and must not point at an address that is not read.
	for _, r := range ix.results {
		if ix.nodes[r.node].onPath {
			ix.pair(r.node, r.callID)
		}
	}
	ix.results = nil
	return head, nil
}

// pair links a tool result, as it is indexed, to the call it answers: the
// unanswered toolCall of the same id in the nearest assistant message above
// it. Pi chains results directly below their assistant message (pi.md
// §3.3). It runs once the links are resolved and the active path marked,
// over the results on that path, whose ancestors are on it too. A call
// answers once.
func (ix *index) pair(result int32, callID string) {
	open := ix.calls[callID]
	if len(open) == 0 {
		return
	}
	cur := ix.nodes[result].parent
	for steps := 0; cur >= 0 && steps < maxPairWalk; steps++ {
		n := &ix.nodes[cur]
		if n.kind == kindAssistant {
			for k, c := range open {
				if c.node != cur {
					continue
				}
				callSeq, resSeq := n.seq+1+int64(c.pos), ix.nodes[result].seq
				ix.pairs[callSeq], ix.pairs[resSeq] = resSeq, callSeq
				if open = append(open[:k], open[k+1:]...); len(open) == 0 {
					delete(ix.calls, callID)
				} else {
					ix.calls[callID] = open
				}
				return
			}
			return
		}
		if n.kind != kindTreeOnly && n.kind != kindToolResult {
			return // a user turn or notice: the call is not above this result
		}
		cur = n.parent
	}
}

// bootOrdinal returns the ordinal a notesoup boot marker in this entry names,
// or -1. Only text notesoup itself injects counts (compaction and branch
// summaries, extension messages): a user quoting a marker moves nothing. The
// marker's session id is not checked, because a cloned session keeps the
// copied boot's ordinal under its own id.
func bootOrdinal(line []byte, e *entry, version int) int32 {
	switch e.kind {
	case kindCompaction, kindBranchSummary, kindCustomMessage:
	default:
		return -1
	}
	if !bytes.Contains(line, []byte("notesoup-boot")) {
		return -1
	}
	full, err := parseEntry(line, version, true)
	if err != nil {
		return -1
	}
	harness, _, ord, ok := history.ParseBootMarker(full.text)
	if !ok || harness != Name || ord > 1<<30 {
		return -1
	}
	return int32(ord)
}

// window names the window or unknown segment of a node.
func (ix *index) window(n *node) string {
	if n.seg >= 0 {
		return Name + ":" + ix.sessionID + ":unknown:" + ix.missing[n.seg]
	}
	return Name + ":" + ix.sessionID + ":" + strconv.Itoa(int(n.ord))
}

// summary lists the windows evidenced on the active path (numbered ones by
// ordinal, then unknown segments), the gap notes, and the head's window.
func (ix *index) summary(head int32) history.Summary {
	var sum history.Summary
	if head < 0 {
		sum.HeadWindow = Name + ":" + ix.sessionID + ":0"
		sum.HeadKnown = true
		sum.Windows = []string{sum.HeadWindow}
		return sum
	}
	ords := map[int32]bool{}
	segs := map[int32]bool{}
	var segOrder []int32
	for i := range ix.nodes {
		n := &ix.nodes[i]
		if !n.onPath || (n.nseq == 0 && int32(i) != head) {
			continue
		}
		if n.seg >= 0 {
			if !segs[n.seg] {
				segs[n.seg] = true
				segOrder = append(segOrder, n.seg)
			}
		} else {
			ords[n.ord] = true
		}
		if n.gap >= 0 {
			sum.Notes = append(sum.Notes,
				history.ProjectionNote{Kind: history.NoteGap, Line: int(n.line), Ref: ix.missing[n.gap],
					Message: fmt.Sprintf("the entry on line %d names parent %q, which is not in %s: the history before it is missing", n.line, ix.missing[n.gap], ix.path)})
		}
		if n.gap >= 0 && n.seg >= 0 {
			sum.Notes = append(sum.Notes,
				history.ProjectionNote{Kind: history.NoteUnknownSegment, Line: int(n.line), Ref: ix.window(n),
					Message: fmt.Sprintf("events from line %d on have no path to the session's root, so their window ordinal is unknown", n.line)})
		}
	}
	sorted := make([]int32, 0, len(ords))
	for o := range ords {
		sorted = append(sorted, o)
	}
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	for _, o := range sorted {
		sum.Windows = append(sum.Windows, Name+":"+ix.sessionID+":"+strconv.Itoa(int(o)))
	}
	for _, s := range segOrder {
		sum.Windows = append(sum.Windows, Name+":"+ix.sessionID+":unknown:"+ix.missing[s])
	}
	sum.Notice = gapNotice(sum.Notes)
	h := &ix.nodes[head]
	sum.HeadWindow = ix.window(h)
	sum.HeadKnown = h.seg < 0
	if sum.HeadKnown {
		sum.HeadOrdinal = int(h.ord)
	}
	return sum
}

// emit is the second pass: read the committed bytes again (from memory, for
// a file read whole) and emit the entries on the active path in file (=
// seq) order.
//
// A skipped line's notice is emitted in the window of the event before it
// (the head's window when none is), whichever branch the line was on: its
// entry cannot be read to tell.
func (ix *index) emit(f *jsonl.File, headWindow string, emit history.EmitFunc) error {
	lr := f.Lines(ix.committed)
	stable := f.Stable()
	if _, _, err := lr.Next(); err != nil { // the header
		return ix.changed(1)
	}
	next, nextSkip := 0, 0
	windows := map[int32]string{}
	lastWin := headWindow
	for next < len(ix.nodes) || nextSkip < len(ix.skips) {
		line, _, err := lr.Next()
		if err == io.EOF {
			if next < len(ix.nodes) {
				return ix.changed(int(ix.nodes[next].line))
			}
			return ix.changed(ix.skips[nextSkip].line)
		}
		if _, ok := tooLong(err); ok {
			if nextSkip >= len(ix.skips) || ix.skips[nextSkip].line != lr.Line {
				return ix.changed(lr.Line)
			}
			sk := ix.skips[nextSkip]
			nextSkip++
			if err := emit(history.Event{Seq: sk.seq, Window: lastWin, Kind: history.KindNotice, Role: history.RoleSystem, Text: skippedText, Line: sk.line}); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return readErr(ix.path, err)
		}
		if next >= len(ix.nodes) {
			continue // only skipped lines are left to show
		}
		n := &ix.nodes[next]
		if int(n.line) != lr.Line {
			continue // blank, ignored or repeated line
		}
		next++
		if !n.onPath || n.nseq == 0 {
			continue
		}
		if !stable && maphash.Bytes(ix.seed, line) != n.hash {
			return ix.changed(lr.Line) // a streamed file rewritten meanwhile
		}
		// The line is the one the index pass validated: the same bytes
		// in memory, or a streamed line with the digest it had then. Its
		// strings need not be checked again.
		e, err := parseEntryOf(line, ix.version, true, true)
		if err != nil {
			return ix.changed(lr.Line)
		}
		win, ok := windows[n.ord]
		if n.seg >= 0 || !ok {
			win = ix.window(n)
			if n.seg < 0 {
				windows[n.ord] = win
			}
		}
		lastWin = win
		if err := ix.emitEntry(n, &e, win, emit); err != nil {
			return err
		}
	}
	return nil
}

// changed refuses when the second pass does not see what the first indexed:
// pi rewrites a file in place when it migrates an old version.
func (ix *index) changed(line int) error {
	return ix.refuseRetry(line, "the file changed while it was being read (pi rewrites old-version files when it loads them); retry")
}

// emitEntry turns one selected entry into its events.
func (ix *index) emitEntry(n *node, e *entry, win string, emit history.EmitFunc) error {
	ev := history.Event{Seq: n.seq, Window: win, Text: e.text, Time: e.time, Line: int(n.line)}
	switch n.kind {
	case kindUser, kindBash:
		ev.Kind, ev.Role = history.KindMessage, history.RoleUser
	case kindAssistant:
		ev.Kind, ev.Role = history.KindMessage, history.RoleAssistant
	case kindToolResult:
		ev.Kind, ev.Role = history.KindToolResult, history.RoleTool
		ev.ToolID, ev.ToolName, ev.PairSeq, ev.IsError = e.resultID, e.toolName, ix.pairs[n.seq], e.isError
	case kindCustomMessage:
		// Injected by an extension, not typed by the user.
		ev.Kind, ev.Role = history.KindAttachment, history.RoleSystem
	case kindCompaction, kindBranchSummary:
		ev.Kind, ev.Role = history.KindNotice, history.RoleSystem
	}
	if err := emit(ev); err != nil {
		return err
	}
	for j, c := range e.calls {
		seq := n.seq + 1 + int64(j)
		use := history.Event{Seq: seq, Window: win, Kind: history.KindToolUse, Role: history.RoleTool,
			ToolInput: c.args, ToolName: c.name, ToolID: c.id, PairSeq: ix.pairs[seq], Time: e.time, Line: int(n.line)}
		if err := emit(use); err != nil {
			return err
		}
	}
	return nil
}
