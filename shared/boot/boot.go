// Package boot builds the boot block: the text a fresh context window starts
// with, so the model learns its notes, how to keep them, and how to reset.
//
// Build is a pure function of its Input: the same binding, notes, sticky and
// handoff give the same bytes (no clock, no map order), so a boot can be
// compared and cached. File modification times are inputs (they order the
// notes and date the index), never the current time.
package boot

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/notes"
)

// DefaultBudgetTokens bounds a boot block by default: enough for the
// protocol, a full index and the text of the few most useful notes, while
// leaving almost all of a window for work.
const DefaultBudgetTokens = 4000

// BytesPerToken is the estimate the budget uses: English prose and Markdown
// average about four bytes per token across current tokenizers.
const BytesPerToken = 4

// Binding is how one harness exposes notesoup to the model in one window.
type Binding struct {
	// WindowID names the window: "<harness>:<sessionId>:<ordinal>".
	WindowID string `json:"window_id"`
	// ResetTool is the reset tool's name as this harness shows it to the
	// model, e.g. "mcp__notesoup__empty_brain" in Claude Code; empty for a
	// harness that has none (Codex).
	ResetTool string `json:"reset_tool"`
	// ToolPrefix is what the harness puts before tool names
	// ("mcp__notesoup__" in Claude Code, "" elsewhere), so the protocol can
	// name the notes tools exactly as the model sees them.
	ToolPrefix string `json:"tool_prefix,omitempty"`
}

// WindowID returns "<harness>:<sessionId>:<ordinal>" after checking its
// parts, so a bad session id is refused with a fix rather than producing a
// window id that history decoders cannot parse back.
func WindowID(harnessName, sessionID string, ordinal int) (string, error) {
	if harnessName == "" || strings.IndexFunc(harnessName, func(r rune) bool { return !unicode.IsLower(r) && !unicode.IsDigit(r) && r != '-' }) >= 0 {
		return "", fmt.Errorf("harness name %q: want lower-case letters, digits or '-'", harnessName)
	}
	if sessionID == "" {
		return "", errors.New("session id is empty; pass the harness's session id")
	}
	if strings.IndexFunc(sessionID, func(r rune) bool { return r == ':' || unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "", fmt.Errorf("session id %q contains ':', a space or a control character; window ids are <harness>:<sessionId>:<ordinal>, so pass the bare session id", sessionID)
	}
	if ordinal < 0 {
		return "", fmt.Errorf("window ordinal %d is negative; the first window of a session is 0", ordinal)
	}
	return harnessName + ":" + sessionID + ":" + strconv.Itoa(ordinal), nil
}

// Input is everything a boot block is built from.
type Input struct {
	Binding Binding
	// Notes are the notes of both scopes (order does not matter).
	Notes notes.Snapshot
	// Sticky is the last_word of the reset request that produced this
	// window; shown once, near the top. Empty when there is none.
	Sticky string
	// Handoff is the paragraph that follows a reset; empty on a first window.
	Handoff string
	// Notices are harness remarks shown after the protocol, e.g. that
	// history is unavailable in this session.
	Notices []string
	// BudgetTokens bounds the block; 0 means DefaultBudgetTokens.
	BudgetTokens int
}

// Block is a built boot block.
type Block struct {
	Text string `json:"text"`
	// Tokens is the estimated size of Text (bytes / BytesPerToken, rounded up).
	Tokens int `json:"tokens"`
	// Full names the notes whose whole text is included, in order.
	Full []string `json:"full"`
	// IndexOnly counts notes listed in the index without their text.
	IndexOnly int `json:"index_only"`
}

// FromSpace reads the notes of sp and builds the boot block; in.Notes is
// replaced by the snapshot.
func FromSpace(sp *notes.Space, in Input) (Block, error) {
	snap, err := sp.Snapshot()
	if err != nil {
		return Block{}, err
	}
	in.Notes = snap
	return Build(in)
}

// indexNames are the note names treated as a scope's index, in order of
// preference: an index note is the map a person or the dream pass keeps, so
// it is shown before anything else.
var indexNames = []string{"index.md", "readme.md"}

// rank orders notes for inclusion: index notes first (project before
// global, index.md before README.md), then the most recently changed, ties
// by name (and, for duplicate names, by text, so input order never shows).
func rank(ns []notes.Note) []*notes.Note {
	type keyed struct {
		n   *notes.Note
		idx int // position in the index preference, or len when not an index note
	}
	ks := make([]keyed, len(ns))
	for i := range ns {
		ks[i] = keyed{n: &ns[i], idx: indexRank(ns[i].Name)}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.idx != b.idx {
			return cmp.Compare(a.idx, b.idx)
		}
		if c := b.n.Modified.Compare(a.n.Modified); c != 0 {
			return c
		}
		return compareNotes(a.n, b.n)
	})
	out := make([]*notes.Note, len(ks))
	for i, k := range ks {
		out[i] = k.n
	}
	return out
}

// byName orders notes by name (the index order), duplicates by text.
func byName(ns []notes.Note) []*notes.Note {
	out := make([]*notes.Note, len(ns))
	for i := range ns {
		out[i] = &ns[i]
	}
	slices.SortFunc(out, compareNotes)
	return out
}

func compareNotes(a, b *notes.Note) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Content, b.Content)
}

// indexRank places index notes: project index.md, project README.md,
// global ones after; every other note gets the same, last rank.
func indexRank(name string) int {
	global := strings.HasPrefix(name, notes.GlobalPrefix)
	base := strings.TrimPrefix(name, notes.GlobalPrefix)
	for i, ix := range indexNames {
		if strings.EqualFold(base, ix) {
			if global {
				return len(indexNames) + i
			}
			return i
		}
	}
	return 2 * len(indexNames)
}

// bootClose ends the block the boot marker opened.
const bootClose = "</notesoup-boot>\n"

// fullMark follows an index line whose note's text is in the block.
const fullMark = " [full text below]"

// Build renders the boot block. The layout is: the boot marker naming the
// window, the protocol, notices, the sticky note, the index of every note, the full
// text of the notes that fit the budget, and the handoff.
//
// The budget covers the whole block. The protocol, notices, sticky, index
// and handoff are always included; note texts fill what remains, whole or
// not at all, in rank order (a note too big for what remains is skipped and
// smaller ones after it may still fit). When the fixed parts alone exceed
// the budget the block holds no note text and is larger than the budget.
func Build(in Input) (Block, error) {
	b := in.Binding
	if b.WindowID == "" {
		return Block{}, fmt.Errorf("boot binding needs a window id; got %+v (the harness plugin's BootBinding gives one)", b)
	}
	budget := in.BudgetTokens
	if budget < 0 {
		return Block{}, fmt.Errorf("boot budget %d tokens is negative; pass 0 for the default of %d", budget, DefaultBudgetTokens)
	}
	if budget == 0 {
		budget = DefaultBudgetTokens
	}
	tool := func(name string) string { return b.ToolPrefix + name }

	var head strings.Builder
	// The marker ties this block to its window, so history decoders that
	// meet a retained boot take its ordinal (see history.BootMarker).
	head.WriteString(history.BootMarker(b.WindowID) + "\n# notesoup\n\n")
	fmt.Fprintf(&head, "Your notes are your memory: they outlive this context window and are shared by every coding agent working in this project. "+
		"Keep them with %s, %s, %s, %s and %s; a name like api/auth.md belongs to this project, a name like ~/style.md is global (all projects).\n",
		tool(notes.ToolList), tool(notes.ToolRead), tool(notes.ToolWrite), tool(notes.ToolEdit), tool(notes.ToolDelete))
	if b.ResetTool != "" {
		fmt.Fprintf(&head, "When the context runs low or a task is done, save what the next window needs to notes, then call %s for a fresh window "+
			"(its last_word is shown to that window). Anything not in notes is gone after a reset.\n", b.ResetTool)
	} else {
		// A harness with no reset tool (Codex) compacts on its own schedule.
		head.WriteString("This harness cannot empty the window on request: it compacts on its own when the context fills. " +
			"Keep what the next window needs in notes as you go; anything not in notes may be lost at a compaction.\n")
	}
	if in.Notes.Project != "" {
		fmt.Fprintf(&head, "Project: %s\n", in.Notes.Project)
	}
	for _, n := range in.Notices {
		if n = strings.TrimSpace(n); n != "" {
			fmt.Fprintf(&head, "\n%s\n", n)
		}
	}
	if s := strings.TrimSpace(in.Sticky); s != "" {
		fmt.Fprintf(&head, "\n## Last word from your previous window\n%s\n", s)
	}

	ranked := rank(in.Notes.Notes)
	sorted := byName(in.Notes.Notes)

	var tail string
	if h := strings.TrimSpace(in.Handoff); h != "" {
		tail = "\n## Handoff\n" + h + "\n"
	}
	tail += bootClose

	readTool := tool(notes.ToolRead)
	// Reserve the longest header and footer the counts can produce: their
	// digits can only shrink once the choice is made.
	footer := max(len(textsFooter(0, len(ranked), readTool)), len(textsFooter(1, len(ranked), readTool)))
	lines := make([]string, len(sorted))
	indexLen := len(indexHeader(len(sorted), countGlobal(sorted)))
	for i, n := range sorted {
		lines[i] = indexLine(n)
		indexLen += len(lines[i]) + 1
	}

	// Choose the full texts first: the index marks them.
	fixed := head.Len() + len(tail) + indexLen + len(textsHeader(len(ranked), len(ranked))) + footer
	room := budget*BytesPerToken - fixed
	full := map[string]bool{}
	var chosen []*notes.Note
	for _, n := range ranked {
		if cost := noteBlockLen(n) + len(fullMark); cost <= room {
			room -= cost
			full[n.Name] = true
			chosen = append(chosen, n)
		}
	}

	var out strings.Builder
	out.Grow(fixed + budget*BytesPerToken)
	out.WriteString(head.String())
	out.WriteString(indexHeader(len(sorted), countGlobal(sorted)))
	for i, n := range sorted {
		out.WriteString(lines[i])
		if full[n.Name] {
			out.WriteString(fullMark)
		}
		out.WriteByte('\n')
	}
	fullOrder := make([]string, len(chosen))
	if len(ranked) > 0 {
		out.WriteString(textsHeader(len(chosen), len(ranked)))
		for i, n := range chosen {
			writeNoteBlock(&out, n)
			fullOrder[i] = n.Name
		}
		out.WriteString(textsFooter(len(chosen), len(ranked), readTool))
	}
	out.WriteString(tail)
	text := out.String()
	return Block{
		Text:      text,
		Tokens:    (len(text) + BytesPerToken - 1) / BytesPerToken,
		Full:      fullOrder,
		IndexOnly: len(ranked) - len(fullOrder),
	}, nil
}

func countGlobal(ns []*notes.Note) int {
	g := 0
	for _, n := range ns {
		if strings.HasPrefix(n.Name, notes.GlobalPrefix) {
			g++
		}
	}
	return g
}

func indexLine(n *notes.Note) string {
	first := notes.FirstLine(n.Content)
	if first != "" {
		first = ": " + first
	}
	return "- " + n.Name + " (" + notes.HumanSize(n.Size) + ", " + n.Modified.UTC().Format("2006-01-02") + ")" + first
}

func indexHeader(total, global int) string {
	if total == 0 {
		return "\n## Notes\nNo notes yet. Start one when you learn something the next window will need.\n"
	}
	return fmt.Sprintf("\n## Notes index (%d: %d project, %d global)\n", total, total-global, global)
}

func textsHeader(shown, total int) string {
	return fmt.Sprintf("\n## Notes in full (%d of %d: index notes first, then the most recently changed)\n", shown, total)
}

func textsFooter(shown, total int, readTool string) string {
	switch {
	case total == 0 || shown == total:
		return ""
	case shown == 0:
		return fmt.Sprintf("No note fits the boot budget whole, so all %d are in the index only; read them with %s.\n", total, readTool)
	default:
		return fmt.Sprintf("The other %d notes are in the index only (a note is shown whole or not at all); read them with %s.\n", total-shown, readTool)
	}
}

// Note texts sit between tags, so Markdown headings and fences inside a
// note cannot blur where it starts and ends.
const (
	noteOpen  = "<note name=\""
	noteOpen2 = "\">\n"
	noteClose = "</note>\n"
)

// noteBlockLen is the length writeNoteBlock will write, computed without
// building the text: most notes of a large store are only measured.
func noteBlockLen(n *notes.Note) int {
	l := len(noteOpen) + len(n.Name) + len(noteOpen2) + len(n.Content) + len(noteClose)
	if n.Content != "" && !strings.HasSuffix(n.Content, "\n") {
		l++
	}
	return l
}

func writeNoteBlock(w *strings.Builder, n *notes.Note) {
	w.WriteString(noteOpen)
	w.WriteString(n.Name)
	w.WriteString(noteOpen2)
	w.WriteString(n.Content)
	if n.Content != "" && !strings.HasSuffix(n.Content, "\n") {
		w.WriteByte('\n')
	}
	w.WriteString(noteClose)
}
