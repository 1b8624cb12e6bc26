// Package codex is the OpenAI Codex CLI's side of notesoup's cross-harness
// history: it finds Codex rollout files and decodes them into the
// harness-neutral events of shared/history.
package codex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/harness/walk"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/history"
)

// maxForkDepth bounds a chain of forks of forks; a longer chain is taken to
// be a loop in history_base links.
const maxForkDepth = 64

// Decoder decodes Codex rollout files of every generation codex.md lists
// (≤0.142 legacy, 0.145–0.147 "legacy" mode, paginated 0.148+), including
// files that mix them. It is safe for concurrent use.
type Decoder struct {
	// Roots are searched for the parent rollout of a paginated fork
	// (history_base). Nil means DefaultRoots().
	Roots []string
}

var _ history.Decoder = Decoder{}

// source is one file of a fork chain: the ancestors' inherited prefixes,
// then the session's own file.
type source struct {
	path      string
	f         *os.File
	lines     *jsonl.File // both passes' reads of f (one, when it is small)
	limit     int64       // bytes that may be read (end_byte_offset for a parent)
	endOrd    int64       // lines with ordinal >= endOrd are not inherited; -1: none
	inherited bool
	committed int64 // bytes of committed lines, found by the first pass
	// head is line 1 as readMeta decoded it. When the file is read whole
	// (lines.Stable) every pass sees those same bytes, so the passes take
	// it from here instead of decoding a session_meta, often tens of KiB
	// of instructions, twice more with encoding/json.
	head *record
}

// Decode reads the rollout at sess.Path, and the inherited prefix of every
// ancestor a paginated fork names, in two passes: the first validates,
// allocates addresses and pairs calls with outputs; the second reads the
// same committed bytes again and emits. A rollout of up to jsonl.WholeBytes
// is read once, into a pooled buffer both passes share; a larger one is
// streamed twice. Memory grows with the number of pending tool calls and
// that bound, not with the file. DecodeOptions.Head is not used: a rollout
// is linear.
func (d Decoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	roots := d.Roots
	if roots == nil {
		var err error
		if roots, err = DefaultRoots(); err != nil {
			roots = nil // no roots: a fork's parent will be reported missing
		}
	}
	f, fi, err := rawread.Open(sess.Path)
	if err != nil {
		return history.Summary{}, fmt.Errorf("codex history: open rollout: %w", err)
	}
	own := &source{path: sess.Path, f: f, endOrd: -1}
	chain := []*source{own}
	defer func() {
		for _, s := range chain {
			if s.lines != nil {
				s.lines.Release()
			}
			s.f.Close()
		}
	}()
	own.limit = fi.Size()
	own.lines = jsonl.NewFile(f, own.limit)
	meta, err := readMeta(own)
	if err != nil {
		return refusalSummary(err), err
	}
	dec := &decoder{threadID: meta.threadID(), known: true}
	// Walk history_base links up to the first ancestor, prepending each
	// parent's inherited prefix.
	seen := map[string]bool{dec.threadID: true}
	for m := meta; m.HistoryBase != nil && m.HistoryBase.ThreadID != ""; {
		hb := m.HistoryBase
		if seen[hb.ThreadID] || len(chain) > maxForkDepth {
			err := refusal(chain[0].path, 1, false, fmt.Sprintf("history_base links loop back to thread %s; the rollouts are corrupted", hb.ThreadID))
			return refusalSummary(err), err
		}
		seen[hb.ThreadID] = true
		parent, perr := findRolloutNear(filepath.Dir(chain[0].path), roots, hb.ThreadID)
		if perr != nil {
			dec.missingParent(chain[0].path, hb, roots)
			break
		}
		// Only a regular file inside the roots is read: a link (a folder
		// or the file itself) could show another file's bytes as the
		// parent's, and a FIFO would block the decode for good.
		if !walk.Inside(parent, roots) {
			dec.unreadableParent(chain[0].path, hb, parent, "it is not inside the Codex roots once links are resolved")
			break
		}
		pf, pfi, err := rawread.Open(parent)
		if err != nil {
			dec.unreadableParent(chain[0].path, hb, parent, err.Error())
			break
		}
		ps := &source{path: parent, f: pf, endOrd: -1, inherited: true}
		chain = append([]*source{ps}, chain...)
		ps.limit = pfi.Size()
		ps.lines = jsonl.NewFile(pf, ps.limit)
		if hb.EndByteOffset != nil && *hb.EndByteOffset >= 0 {
			if *hb.EndByteOffset > ps.limit {
				// What the parent still holds is shown, but whatever is
				// missing may have held compactions: ordinals are unknown.
				dec.gap(hb.ThreadID, fmt.Sprintf("the fork point of parent rollout %s (byte %d) is past its end (%d bytes): part of the inherited history is missing", parent, *hb.EndByteOffset, ps.limit))
			} else {
				ps.limit = *hb.EndByteOffset
			}
		}
		if hb.EndOrdinalExclusive != nil {
			ps.endOrd = *hb.EndOrdinalExclusive
		}
		pm, err := readMeta(ps)
		if err != nil {
			return refusalSummary(err), err
		}
		if pm.threadID() != hb.ThreadID {
			err := refusal(parent, 1, false, fmt.Sprintf("rollout names thread %s, not the fork parent %s", pm.threadID(), hb.ThreadID))
			return refusalSummary(err), err
		}
		m = pm
	}
	if err := dec.index(chain); err != nil {
		return refusalSummary(err), err
	}
	sum := dec.summary()
	if err := dec.emitAll(chain, emit); err != nil {
		var re *history.Refusal
		if errors.As(err, &re) {
			sum.Notes = append(sum.Notes, refusalSummary(err).Notes...)
		}
		return sum, err
	}
	return sum, nil
}

// readMeta reads a rollout's first line, which must be its session_meta.
func readMeta(s *source) (*sessionMeta, error) {
	lr := s.lines.Lines(s.limit)
	line, terminated, err := lr.Next()
	if err == io.EOF {
		return nil, refusal(s.path, 0, true, "the rollout is empty: Codex writes session_meta first; retry once it has")
	}
	if err != nil {
		return nil, readErr(s.path, err)
	}
	r, perr := parseRecord(line, false)
	if perr != nil && !terminated {
		return nil, refusal(s.path, 1, true, "the session_meta line is incomplete (a write in progress?); retry")
	}
	if perr != nil {
		return nil, refusal(s.path, 1, false, perr.Error())
	}
	if r.kind != recSessionMeta || r.meta.threadID() == "" {
		return nil, refusal(s.path, 1, false, "the first line is not a session_meta with an id; this is not a Codex rollout")
	}
	if s.lines.Stable() {
		s.head = &r
	}
	return r.meta, nil
}

// decoder carries the state both passes share.
type decoder struct {
	threadID string
	// known is false when a fork's parent is missing: ordinals are then
	// unknown until a notesoup boot re-anchors them.
	known   bool
	segRef  string // the missing parent thread id, when !known
	notes   []history.ProjectionNote
	pairs   map[int64]int64
	names   map[int64]string // result seq -> its call's tool name
	windows []string         // evidenced, in first-seen order
	head    window
	nseq    int64 // addresses allocated by the first pass
}

// window is the window state of the reading position.
type window struct {
	known   bool
	ord     int
	pending bool // a `compacted` awaits its companion marker event
}

func (w window) name(d *decoder) string {
	if !w.known {
		return Name + ":" + d.threadID + ":unknown:" + d.segRef
	}
	return Name + ":" + d.threadID + ":" + strconv.Itoa(w.ord)
}

// step advances the window state over one record and reports whether the
// record takes an address.
func (w *window) step(r *record) bool {
	if r.boot >= 0 && (r.kind == recContext || r.kind == recCompacted) {
		// A retained notesoup boot names its window: no second advance,
		// and it re-anchors an unknown ancestry.
		w.known, w.ord = true, r.boot
		w.pending = r.kind == recCompacted
		return r.kind == recCompacted
	}
	switch r.kind {
	case recCompacted:
		w.ord++
		w.pending = true
		return true
	case recMarker:
		if w.pending {
			w.pending = false // the same compaction, announced twice
			return false
		}
		w.ord++
		return true
	case recMessage, recToolUse, recToolResult, recTurnError:
		w.pending = false
		return true
	case recSkipped:
		return true // a notice in the window it was met in
	}
	return false
}

func (d *decoder) missingParent(path string, hb *historyBase, roots []string) {
	d.gap(hb.ThreadID, fmt.Sprintf("%s is a fork of thread %s, whose rollout is not under %s: the inherited history is not shown", path, hb.ThreadID, strings.Join(roots, ", ")))
}

// unreadableParent records a parent rollout found by name that is not read
// (why says why); its bytes are never quoted.
func (d *decoder) unreadableParent(path string, hb *historyBase, parent, why string) {
	d.gap(hb.ThreadID, fmt.Sprintf("%s is a fork of thread %s, whose rollout %s is not read (%s): the inherited history is not shown", path, hb.ThreadID, parent, why))
}

// gap records that inherited history is missing: the projection's window
// ordinals are unknown from the start (until a notesoup boot names one).
func (d *decoder) gap(threadID, message string) {
	d.known, d.segRef = false, threadID
	d.notes = append(d.notes,
		history.ProjectionNote{Kind: history.NoteGap, Ref: threadID, Message: message},
		history.ProjectionNote{Kind: history.NoteUnknownSegment, Ref: Name + ":" + d.threadID + ":unknown:" + threadID,
			Message: "without the whole inherited history the window ordinals of this fork are unknown"})
}

// lines iterates the committed lines of one source that belong to the
// projection, calling fn with each decoded record. The first pass (first ==
// true) also finds the committed length and tolerates a torn last line.
func (d *decoder) lines(s *source, withText, first bool, fn func(r *record, line int) error) error {
	limit := s.limit
	if !first {
		limit = s.committed
	}
	lr := s.lines.Lines(limit)
	// The second pass over a rollout read once reads what the first
	// validated.
	trusted := !first && s.lines.Stable()
	for {
		line, terminated, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if long, ok := tooLong(err); ok && lr.Line > 1 {
			// One record too large to read is skipped with a notice that
			// takes its address, so the rest stays readable and later
			// addresses do not move once it is complete.
			if !long.Terminated {
				return nil // still being written, like a torn last line
			}
			if first {
				s.committed = lr.Off
			}
			if err := fn(&record{kind: recSkipped, text: skippedText}, lr.Line); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return readErr(s.path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if first {
				s.committed = lr.Off
			}
			continue
		}
		var r record
		var perr error
		if lr.Line == 1 && s.head != nil {
			r = *s.head
		} else {
			r, perr = parseRecordOf(line, withText, trusted)
		}
		if perr != nil {
			if first && !terminated {
				return nil // torn final line: a write in progress
			}
			if !first {
				return refusal(s.path, lr.Line, true, "the file changed while it was being read; retry")
			}
			return refusal(s.path, lr.Line, false, perr.Error())
		}
		if first {
			s.committed = lr.Off
		}
		if s.endOrd >= 0 && r.ordinal >= s.endOrd {
			return nil // past the fork point: the parent's later history
		}
		if lr.Line == 1 || r.kind == recSessionMeta {
			continue // identity (line 1) or a legacy fork's copied parent meta
		}
		if err := fn(&r, lr.Line); err != nil {
			return err
		}
	}
}

// index is the first pass: validation, addresses, pairing, windows.
func (d *decoder) index(chain []*source) error {
	d.pairs, d.names = map[int64]int64{}, map[int64]string{}
	type call struct {
		seq  int64
		name string
	}
	// call_id -> the latest unanswered call of that id. Ids can repeat
	// (a model re-using "call_1", a legacy fork's copy), so a result
	// answers the most recent open call, and each call answers once.
	pending := map[string]call{}
	w := window{known: d.known}
	seen := map[string]bool{}
	var seq int64
	var failed failures
	for _, s := range chain {
		err := d.lines(s, false, true, func(r *record, line int) error {
			failed.note(r)
			if !w.step(r) {
				return nil
			}
			seq++
			switch r.kind {
			case recToolUse:
				if r.callID != "" {
					pending[r.callID] = call{seq, r.toolName}
				}
			case recToolResult:
				if c, ok := pending[r.callID]; ok {
					d.pairs[c.seq], d.pairs[seq] = seq, c.seq
					d.names[seq] = c.name
					delete(pending, r.callID)
				}
			}
			if name := w.name(d); !seen[name] {
				seen[name] = true
				d.windows = append(d.windows, name)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	d.nseq, d.head = seq, w
	return nil
}

// summary orders the evidenced windows (numbered by ordinal, then unknown
// segments) and reports the head's window.
func (d *decoder) summary() history.Summary {
	sum := history.Summary{Notes: d.notes, Notice: gapNotice(d.notes)}
	head := d.head.name(d)
	ws := append([]string{}, d.windows...)
	found := false
	for _, w := range ws {
		found = found || w == head
	}
	if !found {
		ws = append(ws, head)
	}
	ordOf := func(w string) (int, bool) {
		n, err := strconv.Atoi(w[strings.LastIndexByte(w, ':')+1:])
		return n, err == nil && !strings.Contains(w, ":unknown:")
	}
	sort.SliceStable(ws, func(i, j int) bool {
		oi, ki := ordOf(ws[i])
		oj, kj := ordOf(ws[j])
		if ki != kj {
			return ki
		}
		return ki && oi < oj
	})
	sum.Windows = ws
	sum.HeadWindow, sum.HeadKnown = head, d.head.known
	if d.head.known {
		sum.HeadOrdinal = d.head.ord
	}
	return sum
}

// emitAll is the second pass.
func (d *decoder) emitAll(chain []*source, emit history.EmitFunc) error {
	w := window{known: d.known}
	var seq int64
	var failed failures
	for _, s := range chain {
		err := d.lines(s, true, false, func(r *record, line int) error {
			failed.note(r)
			if !w.step(r) {
				return nil
			}
			seq++
			if seq > d.nseq {
				return refusal(s.path, line, true, "the file changed while it was being read; retry")
			}
			ev := history.Event{Seq: seq, Window: w.name(d), Role: r.role, Text: r.text, Time: r.time, Line: line}
			if s.inherited {
				ev.Line = 0 // the line is in the parent's file, not this one
			}
			switch r.kind {
			case recMessage:
				ev.Kind = history.KindMessage
			case recCompacted, recMarker, recTurnError:
				ev.Kind = history.KindNotice
			case recSkipped:
				ev.Kind, ev.Role = history.KindNotice, history.RoleSystem
			case recToolUse:
				ev.Kind, ev.ToolName, ev.ToolID, ev.ToolInput, ev.PairSeq = history.KindToolUse, r.toolName, r.callID, r.input, d.pairs[seq]
			case recToolResult:
				ev.Kind, ev.ToolID, ev.IsError, ev.PairSeq, ev.ToolName = history.KindToolResult, r.callID, r.isError, d.pairs[seq], d.names[seq]
			}
			return emit(ev)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// refusal is the decoder's one error: a rollout it cannot decode faithfully
// (a malformed committed line, an invalid known schema, a fork loop). It
// names the file and the 1-based line (0 for the whole file); retry is true
// when the refusal is about a write in progress (an empty file, a torn
// header, a file rewritten under the reader), which the same call may not
// meet a moment later.
func refusal(path string, line int, retry bool, reason string) *history.Refusal {
	return &history.Refusal{Harness: Name, Path: path, Line: line, Reason: reason, Retry: retry}
}

// refusalSummary reports a refusal as a projection note too.
func refusalSummary(err error) history.Summary {
	var re *history.Refusal
	if !errors.As(err, &re) {
		return history.Summary{}
	}
	return history.Summary{Notes: []history.ProjectionNote{{Kind: history.NoteRefusal, Message: re.Error(), Line: re.Line}}}
}

// failures carries item_completed failure reports to the output lines that
// follow them. Only failed calls whose output has not been read yet are
// held, so it stays small.
type failures map[string]bool

// note records a failure report, or marks an output whose call failed.
func (f *failures) note(r *record) {
	switch {
	case r.failedCall != "":
		if *f == nil {
			*f = failures{}
		}
		(*f)[r.failedCall] = true
	case r.kind == recToolResult && (*f)[r.callID]:
		r.isError = true
		delete(*f, r.callID)
	}
}
