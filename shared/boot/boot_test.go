package boot

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/notes"
)

func TestWindowID(t *testing.T) {
	tests := []struct {
		harness, session string
		ordinal          int
		want             string
		wantErr          string
	}{
		{"claude", "abc-123", 0, "claude:abc-123:0", ""},
		{"pi", "s1", 2, "pi:s1:2", ""},
		{"Bad Name", "s", 0, "", "lower-case"},
		{"claude", "", 0, "", "session id is empty"},
		{"claude", "a:b", 0, "", "bare session id"},
		{"claude", "a b", 0, "", "bare session id"},
		{"claude", "s", -1, "", "first window of a session is 0"},
	}
	for _, tt := range tests {
		got, err := WindowID(tt.harness, tt.session, tt.ordinal)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("WindowID(%q,%q,%d) err = %v, want %q", tt.harness, tt.session, tt.ordinal, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("WindowID(%q,%q,%d) = %q, %v; want %q", tt.harness, tt.session, tt.ordinal, got, err, tt.want)
		}
	}
}

func TestBuildWithoutResetTool(t *testing.T) {
	blk, err := Build(Input{Binding: Binding{WindowID: "codex:t:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(blk.Text, "empty_brain") || !strings.Contains(blk.Text, "cannot empty the window on request") {
		t.Fatalf("a harness without a reset tool must not be told to call one:\n%s", blk.Text)
	}
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func note(name string, ageHours int, content string) notes.Note {
	return notes.Note{Name: name, Size: int64(len(content)), Modified: t0.Add(-time.Duration(ageHours) * time.Hour), Content: content}
}

func claude(t *testing.T) Binding {
	return Binding{WindowID: "claude:sess:1", ResetTool: "mcp__notesoup__empty_brain", ToolPrefix: "mcp__notesoup__"}
}

func TestBuildLayout(t *testing.T) {
	in := Input{
		Binding: claude(t),
		Notes: notes.Snapshot{Project: "/src/app", Notes: []notes.Note{
			note("api/auth.md", 1, "# Auth\nTokens expire after 1h.\n"),
			note("~/style.md", 5, "Prefer tabs."),
			note("index.md", 100, "# Map of notes\n- api/auth.md: auth\n"),
		}},
		Sticky:  "  finish the migration test  \n",
		Handoff: "You were reset; continue from your notes.",
		Notices: []string{"History is unavailable in this session."},
	}
	blk, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	text := blk.Text
	mustOrder := []string{
		"<notesoup-boot window=\"claude:sess:1\">\n# notesoup\n",
		"mcp__notesoup__notes_list, mcp__notesoup__notes_read, mcp__notesoup__notes_write, mcp__notesoup__notes_edit and mcp__notesoup__notes_delete",
		"then call mcp__notesoup__empty_brain for a fresh window",
		"Anything not in notes is gone after a reset.",
		"Project: /src/app\n",
		"\nHistory is unavailable in this session.\n",
		"## Last word from your previous window\nfinish the migration test\n",
		"## Notes index (3: 2 project, 1 global)\n",
		"- api/auth.md (31 B, 2026-11-01): Auth [full text below]\n",
		"- index.md (35 B, 2026-10-28): Map of notes [full text below]\n",
		"- ~/style.md (12 B, 2026-11-01): Prefer tabs. [full text below]\n",
		"## Notes in full (3 of 3",
		"<note name=\"index.md\">\n# Map of notes\n- api/auth.md: auth\n</note>\n",
		"<note name=\"api/auth.md\">\n# Auth\nTokens expire after 1h.\n</note>\n",
		"<note name=\"~/style.md\">\nPrefer tabs.\n</note>\n",
		"\n## Handoff\nYou were reset; continue from your notes.\n",
	}
	pos := 0
	for _, s := range mustOrder {
		i := strings.Index(text[pos:], s)
		if i < 0 {
			t.Fatalf("boot lacks %q after byte %d:\n%s", s, pos, text)
		}
		pos += i + len(s)
	}
	if h, s, o, ok := history.ParseBootMarker(text); !ok || h != "claude" || s != "sess" || o != 1 {
		t.Errorf("boot marker parses as %q %q %d %v", h, s, o, ok)
	}
	if !strings.HasSuffix(text, "continue from your notes.\n</notesoup-boot>\n") {
		t.Errorf("boot does not end with the handoff:\n%s", text)
	}
	if strings.Count(text, "finish the migration test") != 1 {
		t.Errorf("sticky shown %d times", strings.Count(text, "finish the migration test"))
	}
	if blk.Tokens != (len(text)+3)/4 || blk.IndexOnly != 0 || strings.Join(blk.Full, ",") != "index.md,api/auth.md,~/style.md" {
		t.Errorf("block meta = %+v", blk)
	}
	// Pi's binding names its own reset tool and bare tool names.
	pi := Binding{WindowID: "pi:s:0", ResetTool: "empty_brain"}
	in.Binding = pi
	blk, _ = Build(in)
	if !strings.Contains(blk.Text, "then call empty_brain for a fresh window") || strings.Contains(blk.Text, "mcp__") {
		t.Errorf("pi boot does not use pi's tool names:\n%s", blk.Text)
	}
	// No sticky, no handoff, no notices: those sections are absent.
	in.Sticky, in.Handoff, in.Notices = " ", "", nil
	blk, _ = Build(in)
	for _, s := range []string{"Last word", "Handoff", "History is unavailable"} {
		if strings.Contains(blk.Text, s) {
			t.Errorf("boot without %s still mentions it", s)
		}
	}
}

func TestBuildSelectionAndBudget(t *testing.T) {
	big := strings.Repeat("b", 3000)
	all := []notes.Note{
		note("old.md", 50, "old\n"),
		note("README.md", 200, "# Readme\n"),
		note("~/index.md", 300, "# Global map\n"),
		note("big.md", 0, big+"\n"),
		note("tie-b.md", 10, "tie b\n"),
		note("tie-a.md", 10, "tie a\n"),
		note("new.md", 2, "new\n"),
	}
	tests := []struct {
		name       string
		budget     int
		wantFull   []string
		wantAbsent []string
	}{
		{name: "everything fits", budget: 10000,
			wantFull: []string{"README.md", "~/index.md", "big.md", "new.md", "tie-a.md", "tie-b.md", "old.md"}},
		{name: "big note skipped, smaller later ones fit", budget: 700,
			wantFull: []string{"README.md", "~/index.md", "new.md", "tie-a.md", "tie-b.md", "old.md"}, wantAbsent: []string{big}},
		{name: "fixed parts exceed the budget", budget: 10,
			wantFull: nil, wantAbsent: []string{"<note name=", big}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blk, err := Build(Input{Binding: claude(t), Notes: notes.Snapshot{Notes: all}, BudgetTokens: tt.budget})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(blk.Full, ",") != strings.Join(tt.wantFull, ",") {
				t.Errorf("full = %v, want %v", blk.Full, tt.wantFull)
			}
			if blk.IndexOnly != len(all)-len(tt.wantFull) {
				t.Errorf("index only = %d", blk.IndexOnly)
			}
			for _, n := range all {
				if !strings.Contains(blk.Text, "- "+n.Name+" (") {
					t.Errorf("index lacks %s", n.Name)
				}
			}
			for _, s := range tt.wantAbsent {
				if strings.Contains(blk.Text, s) {
					t.Errorf("boot contains %.40q", s)
				}
			}
			// Every note whose text appears, appears whole and is marked.
			for _, n := range all {
				in := strings.Contains(blk.Text, "<note name=\""+n.Name+"\">")
				whole := strings.Contains(blk.Text, "<note name=\""+n.Name+"\">\n"+n.Content+"</note>\n")
				if in != whole {
					t.Errorf("%s appears but not whole", n.Name)
				}
				if marked := strings.Contains(blk.Text, n.Name+" ("+notes.HumanSize(n.Size)) && strings.Contains(blk.Text, n.Name+" ("+notes.HumanSize(n.Size)+", "+n.Modified.Format("2006-01-02")+"): "+notes.FirstLine(n.Content)+fullMark); marked != in {
					t.Errorf("%s: in full = %v but marked = %v", n.Name, in, marked)
				}
			}
			if blk.IndexOnly > 0 && !strings.Contains(blk.Text, "index only") {
				t.Errorf("omitted notes are not announced:\n%s", blk.Text)
			}
			if len(tt.wantFull) > 0 && blk.Tokens > tt.budget {
				t.Errorf("block is %d tokens, over the %d budget", blk.Tokens, tt.budget)
			}
		})
	}
}

func TestBuildDeterministic(t *testing.T) {
	var ns []notes.Note
	for i := 0; i < 60; i++ {
		ns = append(ns, note(fmt.Sprintf("n%02d.md", i), i%7, fmt.Sprintf("# note %d\n%s", i, strings.Repeat("x", i*10))))
	}
	in := Input{Binding: claude(t), Notes: notes.Snapshot{Project: "/p", Notes: ns}, Sticky: "s", Handoff: "h", BudgetTokens: 1500}
	first, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		shuffled := append([]notes.Note(nil), ns...)
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		in.Notes.Notes = shuffled
		again, _ := Build(in)
		if again.Text != first.Text {
			t.Fatalf("input order changed the boot bytes")
		}
	}
	if ns[0].Name != "n00.md" {
		t.Errorf("Build reordered its input")
	}
}

func TestBuildRefusals(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"no window id", Input{Binding: Binding{ResetTool: "x"}}, "window id"},
		{"negative budget", Input{Binding: Binding{WindowID: "pi:s:0", ResetTool: "empty_brain"}, BudgetTokens: -1}, "negative"},
	}
	for _, tt := range tests {
		if _, err := Build(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	blk, err := Build(Input{Binding: Binding{WindowID: "pi:s:0", ResetTool: "empty_brain"}})
	if err != nil || !strings.Contains(blk.Text, "No notes yet") || strings.Contains(blk.Text, "Notes in full") {
		t.Errorf("empty boot = %q, %v", blk.Text, err)
	}
}

func TestFromSpace(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	sp, err := notes.Open(home).Space(proj)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"index.md": "# Index\n", "a/b.md": "B\n", "~/me.md": "Me\n"} {
		if _, err := sp.Write(notes.WriteRequest{Name: name, Content: body}); err != nil {
			t.Fatal(err)
		}
	}
	blk, err := FromSpace(sp, Input{Binding: claude(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(blk.Full) != 3 || blk.Full[0] != "index.md" || !strings.Contains(blk.Text, "Project: "+sp.Root()+"\n") {
		t.Errorf("boot from space = %+v", blk)
	}
	again, _ := FromSpace(sp, Input{Binding: claude(t)})
	if again.Text != blk.Text {
		t.Error("two boots of unchanged notes differ")
	}
}

// TestBuildBudgetProperty checks the budget rule on random stores: a block
// with note texts stays within the budget, every omitted note really did
// not fit, and the chosen notes follow the rank order.
func TestBuildBudgetProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	// footerSlack covers the reserve Build keeps for the longest footer,
	// which the actual footer may not use.
	const footerSlack = 160
	for iter := 0; iter < 200; iter++ {
		var ns []notes.Note
		for i := 0; i < 1+rng.Intn(40); i++ {
			ns = append(ns, note(fmt.Sprintf("d%d/n%02d.md", i%3, i), rng.Intn(20), strings.Repeat("word ", rng.Intn(400))+"\n"))
		}
		budget := 200 + rng.Intn(3000)
		blk, err := Build(Input{Binding: claude(t), Notes: notes.Snapshot{Notes: ns}, BudgetTokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		if len(blk.Full) > 0 && blk.Tokens > budget {
			t.Fatalf("iter %d: %d tokens over budget %d", iter, blk.Tokens, budget)
		}
		full := map[string]bool{}
		for _, n := range blk.Full {
			full[n] = true
		}
		var order []string
		for _, n := range rank(ns) {
			if full[n.Name] {
				order = append(order, n.Name)
				continue
			}
			if cost := noteBlockLen(n) + len(fullMark); len(blk.Text)+cost+footerSlack <= budget*BytesPerToken {
				t.Fatalf("iter %d: %s (%d bytes) was left out but fits (%d of %d bytes used)", iter, n.Name, cost, len(blk.Text), budget*BytesPerToken)
			}
		}
		if strings.Join(order, ",") != strings.Join(blk.Full, ",") {
			t.Fatalf("iter %d: full texts %v not in rank order %v", iter, blk.Full, order)
		}
	}
}

// TestBuildBounded: whatever the notes folders hold and whatever the
// caller passes, the block stays within MaxBlockBytes, names every note it
// could not show, and never shows a too-large or partly read note as
// whole. Before the fix the index and the caller's text were unbounded.
func TestBuildBounded(t *testing.T) {
	var ns []notes.Note
	for i := range 3000 {
		name := fmt.Sprintf("%s/n%04d.md", strings.Repeat("d", 150), i)
		ns = append(ns, note(name, i%50, "# "+strings.Repeat("word ", 40)+"\n"))
	}
	huge := notes.Note{Name: "huge.md", Size: 1 << 30, Modified: t0, TooLarge: true}
	part := note("partial.md", 0, "# Partial\nthe start")
	part.Size, part.Partial = 1<<20, true
	ns = append(ns, huge, part)
	big := strings.Repeat("s", 1<<20)
	in := Input{Binding: claude(t), Notes: notes.Snapshot{Notes: ns, Unread: 7}, Sticky: big, Handoff: big,
		Notices: []string{big, big}, BudgetTokens: 1 << 30}
	blk, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(blk.Text) > MaxBlockBytes {
		t.Fatalf("block is %d bytes, over %d", len(blk.Text), MaxBlockBytes)
	}
	if blk.Unlisted < 7 || !strings.Contains(blk.Text, fmt.Sprintf("%d more notes are not in this index", blk.Unlisted)) {
		t.Errorf("unlisted = %d; the block does not say how many notes it left out", blk.Unlisted)
	}
	if !strings.Contains(blk.Text, fmt.Sprintf("(%d of %d:", len(ns)-blk.Unlisted+7, len(ns)+7)) {
		t.Errorf("index header does not count listed of all notes")
	}
	// The huge and the partial note rank first (newest) and are named.
	if !strings.Contains(blk.Text, "- huge.md (1073.7 MB, 2026-11-01): too large to read (over the 64 KiB limit per note)") {
		t.Errorf("the too-large note is not named with its size and reason")
	}
	if !strings.Contains(blk.Text, "- partial.md (1.0 MB, 2026-11-01): Partial (not read whole") {
		t.Errorf("the partly read note is not marked")
	}
	for _, n := range blk.Full {
		if n == "huge.md" || n == "partial.md" {
			t.Errorf("%s shown as whole text", n)
		}
	}
	// Small stores are unchanged: every note listed, nothing unlisted.
	blk, err = Build(Input{Binding: claude(t), Notes: notes.Snapshot{Notes: ns[:10]}})
	if err != nil || blk.Unlisted != 0 || strings.Contains(blk.Text, "not in this index") {
		t.Errorf("small store: unlisted %d, %v", blk.Unlisted, err)
	}
}

// TestFromSpaceNamesHugeNote: a 1 GiB note another tool left in the
// folder is named in the boot, not read into it.
func TestFromSpaceNamesHugeNote(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	sp, err := notes.Open(home).Space(proj)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Write(notes.WriteRequest{Name: "ok.md", Content: "# OK\n"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(sp.ProjectDir(), "huge.md"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(1 << 30) // sparse
	f.Close()
	blk, err := FromSpace(sp, Input{Binding: claude(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blk.Text, "- huge.md (1073.7 MB, ") || !strings.Contains(blk.Text, "too large to read") || len(blk.Text) > 16<<10 {
		t.Errorf("boot with a 1 GiB note (%d bytes):\n%s", len(blk.Text), blk.Text)
	}
}
