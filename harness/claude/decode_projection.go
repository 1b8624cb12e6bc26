package claude

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/notesoup/notesoup/shared/history"
)

// Selecting the branch on the graph: the head, the rows on its path (with
// parallel-call siblings), the window ordinals, the tool pairs and the
// summary.

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
		// The logical parent is in the file (copied after the boundary):
		// what is missing is the history before the boundary, which no
		// uuid in the file names. The note names the boundary, the cut.
		l := g.uuidOf(g.logical(b))
		s.Notes = append(s.Notes, history.ProjectionNote{Kind: history.NoteGap, Line: int(g.nodes.at(b).lastLine), Ref: g.uuidOf(b),
			Message: forkCutPrefix + g.uuidOf(b) + " is not in this file (its logical parent " + l + " was copied after it, as a fork does)"})
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
