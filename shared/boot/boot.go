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

// MaxBlockBytes bounds a whole boot block, whatever the notes folders hold
// (other tools can put thousands of notes there) and whatever budget is
// asked for: a quarter of a small window. The index of a store at its
// write limits fits; past this the index lists the notes that rank first
// and counts the rest.
const MaxBlockBytes = 256 << 10

// Bounds on the caller's text in the block (the sticky last word, the
// handoff, each notice), which are clipped with "…" beyond them, so the
// index always has room.
const (
	maxStickyBytes  = 16 << 10
	maxHandoffBytes = 16 << 10
	maxNoticeBytes  = 4 << 10
	maxNotices      = 8
)

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
	// Unlisted counts notes left out of the index: past MaxBlockBytes, or
	// never read because a scope holds more than notes.MaxScopeNotes.
	Unlisted int `json:"unlisted,omitempty"`
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
	budget = min(budget, MaxBlockBytes/BytesPerToken)
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
	for i, n := range in.Notices {
		if i == maxNotices {
			break
		}
		if n = strings.TrimSpace(n); n != "" {
			fmt.Fprintf(&head, "\n%s\n", notes.Clip(n, maxNoticeBytes))
		}
	}
	if s := strings.TrimSpace(in.Sticky); s != "" {
		fmt.Fprintf(&head, "\n## Last word from your previous window\n%s\n", notes.Clip(s, maxStickyBytes))
	}

	var tail string
	if h := strings.TrimSpace(in.Handoff); h != "" {
		tail = "\n## Handoff\n" + notes.Clip(h, maxHandoffBytes) + "\n"
	}
	tail += bootClose

	readTool, listTool := tool(notes.ToolRead), tool(notes.ToolList)
	all := rank(in.Notes.Notes)
	// Reserve the longest header and footers the counts can produce: their
	// digits can only shrink once the choice is made.
	total := len(all) + in.Notes.Unread
	footer := max(len(textsFooter(0, len(all), readTool)), len(textsFooter(1, len(all), readTool)))
	reserve := head.Len() + len(tail) + len(indexHeader(total, total, total)) + len(unlistedLine(total, listTool)) +
		len(textsHeader(len(all), len(all))) + footer
	// The index lists the notes that rank first while it fits the block's
	// bound (every note, unless other tools filled the folders); a line
	// reserves room for its full-text mark.
	lines := map[*notes.Note]string{}
	var listed []*notes.Note
	indexLen := 0
	for _, n := range all {
		l := indexLine(n)
		if reserve+indexLen+len(l)+len(fullMark)+1 > MaxBlockBytes {
			continue // a shorter line after it may still fit
		}
		lines[n] = l
		listed = append(listed, n)
		indexLen += len(l) + 1
	}
	unlisted := total - len(listed)
	ranked := listed // still in rank order
	sorted := slices.Clone(listed)
	slices.SortFunc(sorted, compareNotes)

	// Choose the full texts first: the index marks them. A note that is
	// too large or was read only in part has no whole text to show.
	fixed := reserve + indexLen
	room := min(budget*BytesPerToken, MaxBlockBytes) - fixed
	full := map[*notes.Note]bool{}
	var chosen []*notes.Note
	for _, n := range ranked {
		if n.TooLarge || n.Partial {
			continue
		}
		if cost := noteBlockLen(n) + len(fullMark); cost <= room {
			room -= cost
			full[n] = true
			chosen = append(chosen, n)
		}
	}

	var out strings.Builder
	out.Grow(fixed + budget*BytesPerToken)
	out.WriteString(head.String())
	out.WriteString(indexHeader(len(sorted), countGlobal(sorted), unlisted))
	for _, n := range sorted {
		out.WriteString(lines[n])
		if full[n] {
			out.WriteString(fullMark)
		}
		out.WriteByte('\n')
	}
	if unlisted > 0 {
		out.WriteString(unlistedLine(unlisted, listTool))
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
		Unlisted:  unlisted,
	}, nil
}

// unlistedLine says how many notes the index left out and where to find them.
func unlistedLine(n int, listTool string) string {
	return fmt.Sprintf("%d more notes are not in this index (the boot block is bounded at %d KiB); %s lists them all.\n", n, MaxBlockBytes>>10, listTool)
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
	switch {
	case n.TooLarge:
		first = fmt.Sprintf(": too large to read (over the %d KiB limit per note); a person should split it or trim it with an editor", notes.MaxNoteBytes>>10)
	case n.Partial:
		first += " (not read whole: the boot reads a bounded amount of notes)"
	}
	return "- " + n.Name + " (" + notes.HumanSize(n.Size) + ", " + n.Modified.UTC().Format("2006-01-02") + ")" + first
}

// indexHeader heads the index of listed notes (global of them global);
// unlisted more exist.
func indexHeader(listed, global, unlisted int) string {
	switch {
	case listed == 0 && unlisted == 0:
		return "\n## Notes\nNo notes yet. Start one when you learn something the next window will need.\n"
	case unlisted > 0:
		return fmt.Sprintf("\n## Notes index (%d of %d: %d project, %d global listed)\n", listed, listed+unlisted, listed-global, global)
	}
	return fmt.Sprintf("\n## Notes index (%d: %d project, %d global)\n", listed, listed-global, global)
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
