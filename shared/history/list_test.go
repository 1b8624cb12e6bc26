package history

import (
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/heaptest"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// dialogue builds n turns: a user prompt, an empty assistant envelope with a
// tool call, the tool result envelope and result, a thinking-only envelope,
// and an assistant answer.
func dialogue(n int) []Event {
	var evs []Event
	seq := int64(0)
	add := func(ev Event) {
		seq++
		ev.Seq = seq
		ev.Time = t0.Add(time.Duration(seq) * time.Second)
		if ev.Window == "" {
			ev.Window = "claude:s:0"
			if seq > int64(n*7/2) {
				ev.Window = "claude:s:1"
			}
		}
		evs = append(evs, ev)
	}
	for i := 0; i < n; i++ {
		add(Event{Kind: KindMessage, Role: RoleUser, Text: fmt.Sprintf("prompt %d about Widgets", i)})
		add(Event{Kind: KindMessage, Role: RoleAssistant})
		call := seq + 1
		add(Event{Kind: KindToolUse, Role: RoleTool, ToolName: "Bash", ToolID: fmt.Sprintf("t%d", i), ToolInput: `{"command":"ls"}`, PairSeq: call + 2})
		add(Event{Kind: KindMessage, Role: RoleUser})
		add(Event{Kind: KindToolResult, Role: RoleTool, ToolName: "Bash", ToolID: fmt.Sprintf("t%d", i), Text: "file.txt", PairSeq: call})
		add(Event{Kind: KindMessage, Role: RoleAssistant, Text: "   "}) // thinking-only
		add(Event{Kind: KindMessage, Role: RoleAssistant, Text: fmt.Sprintf("answer %d", i)})
	}
	return evs
}

func seqs(p Page) []int64 {
	var out []int64
	for _, e := range p.Entries {
		out = append(out, e.Seq)
	}
	return out
}

func TestListFilters(t *testing.T) {
	evs := dialogue(4)
	tests := []struct {
		name string
		q    ListQuery
		want []int64
	}{
		{"all listable, newest page", ListQuery{}, []int64{1, 3, 5, 7, 8, 10, 12, 14, 15, 17, 19, 21, 22, 24, 26, 28}},
		{"query is case-insensitive literal", ListQuery{Query: "WIDGETS"}, []int64{1, 8, 15, 22}},
		{"query matches tool input", ListQuery{Query: `"command"`}, []int64{3, 10, 17, 24}},
		{"empty envelopes skipped even with roles", ListQuery{Roles: []Role{RoleAssistant}}, []int64{7, 14, 21, 28}},
		{"user role skips tool-result envelopes", ListQuery{Roles: []Role{RoleUser}}, []int64{1, 8, 15, 22}},
		{"tool role", ListQuery{Roles: []Role{RoleTool}, Limit: 3}, []int64{19, 24, 26}},
		{"window filter", ListQuery{Window: "claude:s:1", Roles: []Role{RoleUser}}, []int64{15, 22}},
		{"window by ordinal", ListQuery{Window: "1", Roles: []Role{RoleUser}}, []int64{15, 22}},
		{"window ordinal is not a substring match", ListQuery{Window: "11", Roles: []Role{RoleUser}}, nil},
		{"forward from a cursor", ListQuery{After: 10, Limit: 3}, []int64{12, 14, 15}},
		{"forward from the beginning", ListQuery{Oldest: true, Limit: 3}, []int64{1, 3, 5}},
		{"backward from a cursor", ListQuery{Before: 10, Limit: 3}, []int64{5, 7, 8}},
		{"no match", ListQuery{Query: "absent"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := List(Slice(evs), tc.q, RenderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(seqs(p)) != fmt.Sprint(tc.want) {
				t.Errorf("seqs = %v, want %v\n%s", seqs(p), tc.want, p.Text)
			}
			for _, e := range p.Entries {
				if !strings.Contains(p.Text, fmt.Sprintf("#%d %s", e.Seq, e.Window)) {
					t.Errorf("entry #%d not rendered: %s", e.Seq, p.Text)
				}
			}
			if tc.want == nil && !strings.Contains(p.Text, "(no entries)") {
				t.Errorf("empty page does not say so: %q", p.Text)
			}
		})
	}
}

func TestListRejectsBadQueries(t *testing.T) {
	for _, q := range []ListQuery{
		{After: 1, Before: 5}, {After: -1}, {Oldest: true, Before: 4}, {Oldest: true, After: 3}, {Limit: MaxListLimit + 1}, {Roles: []Role{"robot"}}, {Query: "two\nlines"},
	} {
		if _, err := List(Slice(nil), q, RenderOptions{}); err == nil {
			t.Errorf("query %+v accepted", q)
		}
	}
}

// TestListPagingCoversEverything follows the footer cursors both ways and
// checks every match is seen exactly once, in order, and that every page
// fits the budget even with a notice and entries long enough to force
// budget-bound pages.
func TestListPagingCoversEverything(t *testing.T) {
	var evs []Event
	for i := 1; i <= 500; i++ {
		text := fmt.Sprintf("entry %d needle ", i) + strings.Repeat("é", 400)
		evs = append(evs, Event{Seq: int64(i * 2), Window: "pi:abc:0", Kind: KindMessage, Role: RoleUser, Text: text})
		evs = append(evs, Event{Seq: int64(i*2 + 1), Window: "pi:abc:0", Kind: KindMessage, Role: RoleAssistant, Text: "other"})
	}
	notice := strings.Repeat("N", 900)
	ro := RenderOptions{Notice: func() string { return notice }, NoticeReserve: 1024}
	for _, limit := range []int{7, MaxListLimit} {
		// Forwards from the start.
		var got []int64
		q := ListQuery{Query: "NEEDLE", Oldest: true, Limit: limit}
		pages := 0
		for {
			p, err := List(Slice(evs), q, ro)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			checkPage(t, p, notice)
			got = append(got, seqs(p)...)
			if p.Newer == 0 {
				break
			}
			q.After, q.Oldest = p.Newer, false
		}
		checkAll(t, "forward", got, false)
		// Backwards from the newest page.
		got = nil
		q = ListQuery{Query: "needle", Limit: limit}
		for {
			p, err := List(Slice(evs), q, ro)
			if err != nil {
				t.Fatal(err)
			}
			checkPage(t, p, notice)
			got = append(seqs(p), got...)
			if p.Older == 0 {
				break
			}
			if !strings.Contains(p.Text, fmt.Sprintf("before=%d", p.Older)) {
				t.Fatalf("footer does not give the older cursor %d: %s", p.Older, p.Text[len(p.Text)-200:])
			}
			q.After, q.Before = 0, p.Older
		}
		checkAll(t, "backward", got, true)
		if limit == MaxListLimit && pages < 3 {
			t.Errorf("budget should have split 500 long entries into several pages, got %d", pages)
		}
	}
}

func checkPage(t *testing.T, p Page, notice string) {
	t.Helper()
	if len(p.Text) > MaxResponseBytes {
		t.Fatalf("page of %d bytes exceeds %d", len(p.Text), MaxResponseBytes)
	}
	if !strings.HasPrefix(p.Text, notice+"\n\n") {
		t.Fatalf("notice missing from page")
	}
	for _, e := range p.Entries {
		if !strings.Contains(p.Text, e.Snippet+"\n") {
			t.Fatalf("entry #%d clipped", e.Seq)
		}
	}
}

func checkAll(t *testing.T, dir string, got []int64, _ bool) {
	t.Helper()
	if len(got) != 500 {
		t.Fatalf("%s paging saw %d entries, want 500", dir, len(got))
	}
	for i, s := range got {
		if s != int64((i+1)*2) {
			t.Fatalf("%s paging: position %d has seq %d, want %d", dir, i, s, (i+1)*2)
		}
	}
}

// generated streams n events with big texts, built on the fly, so the only
// memory a consumer holds is its own.
func generated(n int, textBytes int) iter.Seq2[Event, error] {
	body := strings.Repeat("lorem ipsum ", textBytes/12)
	return func(yield func(Event, error) bool) {
		for i := 1; i <= n; i++ {
			text := body
			if i%1000 == 0 {
				text = body + " NEEDLE"
			}
			if !yield(Event{Seq: int64(i), Window: "codex:t:0", Kind: KindMessage, Role: RoleAssistant, Text: string([]byte(text))}, nil) {
				return
			}
		}
	}
}

// TestListMemoryBoundedByPage streams 200 MB of event text through List
// and checks the heap stays far below the stream's size.
func TestListMemoryBoundedByPage(t *testing.T) {
	const n, size = 50_000, 4096 // ≈200 MB of text
	var p Page
	var err error
	// The page holds 20 events of 4 KB; the bound leaves room for the
	// matcher and the iterator, and is 25 times below the stream.
	heaptest.Within(t, fmt.Sprintf("List over a %d MB stream", n*size>>20), 8<<20, func() {
		p, err = List(generated(n, size), ListQuery{Query: "needle", Limit: 20}, RenderOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 20 || p.Entries[19].Seq != n {
		t.Fatalf("newest page = %v", seqs(p))
	}
}

func TestListCursorEdges(t *testing.T) {
	evs := dialogue(2)
	// Nothing before seq 1: the page is empty but says how to go forwards
	// from the beginning.
	p, err := List(Slice(evs), ListQuery{Before: 1}, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 0 || !p.NewerFromStart || p.Newer != 0 || p.Older != 0 || !strings.Contains(p.Text, "oldest=true") {
		t.Errorf("before=1: entries %v newer %d/%v older %d\n%s", seqs(p), p.Newer, p.NewerFromStart, p.Older, p.Text)
	}
	// Past the end going forwards: empty, with the way back.
	p, err = List(Slice(evs), ListQuery{After: 100}, RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 0 || p.Newer != 0 || p.Older != 101 {
		t.Errorf("after=100: entries %v newer %d older %d", seqs(p), p.Newer, p.Older)
	}
}

func TestWindowMatches(t *testing.T) {
	tests := []struct {
		window, want string
		ok           bool
	}{
		{"claude:s:2", "claude:s:2", true},
		{"claude:s:2", "2", true},
		{"claude:s:12", "2", false},
		{"claude:s:unknown:123", "123", false},
		{"claude:s:unknown:abc", "claude:s:unknown:abc", true},
		{"claude:s:2", "s:2", false},
		{"claude:s:2", "", false},
	}
	for _, tc := range tests {
		if got := windowMatches(tc.window, tc.want); got != tc.ok {
			t.Errorf("windowMatches(%q, %q) = %v", tc.window, tc.want, got)
		}
	}
}
