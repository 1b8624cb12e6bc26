package history

import (
	"fmt"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	evs := dialogue(2)
	// An unpaired result (decoder gave no PairSeq) and a pending call.
	evs = append(evs,
		Event{Seq: 20, Window: "claude:s:1", Kind: KindToolUse, Role: RoleTool, ToolName: "Read", ToolID: "late", ToolInput: `{"path":"x"}`},
		Event{Seq: 21, Window: "claude:s:1", Kind: KindToolResult, Role: RoleTool, ToolName: "Read", ToolID: "late", Text: "x contents", IsError: true},
		Event{Seq: 22, Window: "claude:s:1", Kind: KindToolUse, Role: RoleTool, ToolName: "Bash", ToolID: "pending", ToolInput: `{"command":"sleep"}`},
	)
	tests := []struct {
		name     string
		q        ReadQuery
		shownSeq int64
		contains []string
		absent   []string
	}{
		{"message", ReadQuery{Seq: 1}, 1, []string{"#1 claude:s:0 user", "prompt 0 about Widgets"}, []string{"--"}},
		{"empty envelope says so", ReadQuery{Seq: 2}, 2, []string{NoVisibleText}, nil},
		{"call with its result", ReadQuery{Seq: 3}, 3, []string{"call Bash id=t0", `input: {"command":"ls"}`, "result #5", "file.txt"}, nil},
		{"result redirects to its call", ReadQuery{Seq: 5}, 3, []string{"#5 is the result of call #3", "call Bash", "file.txt"}, nil},
		{"unpaired result found by tool id", ReadQuery{Seq: 21}, 20, []string{"#21 is the result of call #20", "result #21", "(error)", "x contents"}, nil},
		{"pending call", ReadQuery{Seq: 22}, 22, []string{"call Bash id=pending", PendingResult}, []string{"result #"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read(Slice(evs), tc.q, RenderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Seq != tc.shownSeq || r.Requested != tc.q.Seq {
				t.Errorf("shown #%d (asked #%d), want #%d", r.Seq, r.Requested, tc.shownSeq)
			}
			for _, c := range tc.contains {
				if !strings.Contains(r.Text, c) {
					t.Errorf("response lacks %q:\n%s", c, r.Text)
				}
			}
			for _, c := range tc.absent {
				if strings.Contains(r.Text, c) {
					t.Errorf("response has %q:\n%s", c, r.Text)
				}
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	evs := dialogue(1)
	for _, q := range []ReadQuery{{Seq: 0}, {Seq: 99}, {Seq: 1, Offset: -1}, {Seq: 1, Offset: 10_000}} {
		if _, err := Read(Slice(evs), q, RenderOptions{}); err == nil {
			t.Errorf("read %+v succeeded", q)
		}
	}
}

// TestReadPagingReassembles follows the footers of a long multi-byte text
// and checks the pages reassemble it exactly, each within the budget with
// the notice, and that the footer states the exact continuation.
func TestReadPagingReassembles(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 150_000; i++ {
		fmt.Fprintf(&b, "line %d: ünïcödé text 日本語\n", i)
	}
	long := b.String()
	evs := []Event{
		{Seq: 1, Window: "pi:p:0", Kind: KindMessage, Role: RoleUser, Text: "hi"},
		{Seq: 2, Window: "pi:p:0", Kind: KindToolUse, Role: RoleTool, ToolName: "Read", ToolID: "r", ToolInput: `{"path":"big"}`, PairSeq: 3},
		{Seq: 3, Window: "pi:p:0", Kind: KindToolResult, Role: RoleTool, ToolName: "Read", ToolID: "r", Text: long, PairSeq: 2},
	}
	notice := "NOTICE " + strings.Repeat("x", 500)
	hint := func(seq int64, off int) string {
		return fmt.Sprintf("notesoup history read --seq %d --offset %d", seq, off)
	}
	ro := RenderOptions{Notice: func() string { return notice }, NoticeReserve: 1024, ReadHint: hint}
	var got strings.Builder
	q := ReadQuery{Seq: 3}
	pages := 0
	for {
		r, err := Read(Slice(evs), q, ro)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(r.Text) > MaxResponseBytes {
			t.Fatalf("page %d is %d bytes", pages, len(r.Text))
		}
		if !strings.HasPrefix(r.Text, notice+"\n\n") {
			t.Fatal("notice missing")
		}
		if r.Offset != q.Offset && pages > 1 {
			t.Fatalf("page starts at %d, asked %d", r.Offset, q.Offset)
		}
		got.WriteString(r.Body)
		if r.Next == 0 {
			if strings.Contains(r.Text, "the rest:") {
				t.Error("last page still has a continuation footer")
			}
			break
		}
		if want := hint(2, r.Next); !strings.Contains(r.Text, want) {
			t.Fatalf("footer lacks %q", want)
		}
		q = ReadQuery{Seq: 2, Offset: r.Next}
	}
	want := "input: {\"path\":\"big\"}\n\nresult #3 " + timeString(evs[2].Time) + ":\n" + long
	if got.String() != want {
		t.Errorf("reassembled %d bytes, want %d", got.Len(), len(want))
	}
	if pages < 5 {
		t.Errorf("150 KB should take at least 5 pages, took %d", pages)
	}
}

func TestWrapAndNoticeBound(t *testing.T) {
	ro := RenderOptions{Notice: func() string { return strings.Repeat("é", 2000) }, NoticeReserve: 1024}
	got := ro.Wrap("history_list: bad query")
	if !strings.HasSuffix(got, "\n\nhistory_list: bad query") {
		t.Errorf("wrapped error = %q", got[len(got)-40:])
	}
	if n := len(got) - len("history_list: bad query"); n > 1024 {
		t.Errorf("notice took %d bytes, reserve 1024", n)
	}
	if (RenderOptions{}).Wrap("x") != "x" {
		t.Error("no notice should leave text unchanged")
	}
}
