package pi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

const testdataDir = "../../testdata/pi"

// render is a one-line digest of an event that the tables compare against.
func render(e history.Event) string {
	s := fmt.Sprintf("%d @%d %s %s/%s %q", e.Seq, e.Line, e.Window, e.Kind, e.Role, e.Text)
	if e.ToolID != "" || e.ToolName != "" {
		s += fmt.Sprintf(" tool=%s#%s pair=%d", e.ToolName, e.ToolID, e.PairSeq)
	}
	if e.ToolInput != "" {
		s += " input=" + e.ToolInput
	}
	if e.IsError {
		s += " error"
	}
	return s
}

func decodeFile(t *testing.T, path string, opts history.DecodeOptions) ([]string, history.Summary, error) {
	t.Helper()
	var got []string
	var last int64
	sum, err := Decoder{}.Decode(history.Session{Harness: Name, Path: path}, opts, func(e history.Event) error {
		if e.Seq <= last {
			t.Errorf("seq %d emitted after %d: events must ascend", e.Seq, last)
		}
		last = e.Seq
		got = append(got, render(e))
		return nil
	})
	return got, sum, err
}

func TestDecodeFiles(t *testing.T) {
	tests := []struct {
		file    string
		head    string
		want    []string
		windows []string
		headWin string
		known   bool
		ord     int
		notes   []history.NoteKind
	}{
		{
			// Thinking hidden, text shown, parallel calls paired by id with
			// chained results, a thinking-only envelope keeps its address, a
			// pending call stays unpaired; setup entries allocate nothing.
			file: "v3_tools.jsonl",
			want: []string{
				`1 @4 pi:s1:0 message/user "Please read hello.txt"`,
				`2 @5 pi:s1:0 message/assistant "Let me check."`,
				`3 @5 pi:s1:0 tool_use/tool "" tool=read#call_1 pair=5 input={"path":"hello.txt"}`,
				`4 @5 pi:s1:0 tool_use/tool "" tool=bash#call_2 pair=6 input={"command":"ls"}`,
				`5 @6 pi:s1:0 tool_result/tool "Hello from the workspace." tool=read#call_1 pair=3`,
				`6 @7 pi:s1:0 tool_result/tool "hello.txt" tool=bash#call_2 pair=4 error`,
				`7 @8 pi:s1:0 message/assistant ""`,
				`8 @9 pi:s1:0 message/user "Thanks"`,
				`9 @10 pi:s1:0 message/assistant ""`,
				`10 @10 pi:s1:0 tool_use/tool "" tool=read#call_3 pair=0 input={"path":"x"}`,
			},
			windows: []string{"pi:s1:0"}, headWin: "pi:s1:0", known: true, ord: 0,
		},
		{
			// The leaf is the last entry (session_info) on the second branch:
			// the abandoned branch keeps its addresses (7, 8, 9) but is not
			// emitted, and its compaction does not advance the head's window.
			file: "v3_compaction_branch.jsonl",
			want: []string{
				`1 @3 pi:s1:0 message/user "first prompt"`,
				`2 @4 pi:s1:0 message/assistant "first answer"`,
				`3 @6 pi:s1:0 attachment/system "Injected context"`,
				`4 @7 pi:s1:1 notice/system "## Goal\nsummary one"`,
				"5 @8 pi:s1:1 message/user \"Ran `ls`\\n```\\na.txt\\n```\"",
				`9 @12 pi:s1:1 notice/system "BRANCH SUMMARY of 3 entries"`,
				`10 @14 pi:s1:1 message/user "second branch prompt"`,
			},
			windows: []string{"pi:s1:0", "pi:s1:1"}, headWin: "pi:s1:1", known: true, ord: 1,
		},
		{
			// Head named by the caller: the abandoned branch, two compactions deep.
			file: "v3_compaction_branch.jsonl", head: "b000000a",
			want: []string{
				`1 @3 pi:s1:0 message/user "first prompt"`,
				`2 @4 pi:s1:0 message/assistant "first answer"`,
				`3 @6 pi:s1:0 attachment/system "Injected context"`,
				`4 @7 pi:s1:1 notice/system "## Goal\nsummary one"`,
				"5 @8 pi:s1:1 message/user \"Ran `ls`\\n```\\na.txt\\n```\"",
				`6 @9 pi:s1:1 message/user "abandoned branch prompt"`,
				`7 @10 pi:s1:1 message/assistant "abandoned answer"`,
				`8 @11 pi:s1:2 notice/system "summary two on the abandoned branch"`,
			},
			windows: []string{"pi:s1:0", "pi:s1:1", "pi:s1:2"}, headWin: "pi:s1:2", known: true, ord: 2,
		},
		{
			// Version 1: entries chained in file order, migrated in memory;
			// an unknown type is skipped without an address.
			file: "v1_linear.jsonl",
			want: []string{
				`1 @2 pi:s-v1:0 message/user "old prompt"`,
				`2 @3 pi:s-v1:0 message/assistant "old answer"`,
				`3 @4 pi:s-v1:1 notice/system "s"`,
				`4 @6 pi:s-v1:1 attachment/system "hook text"`,
				`5 @7 pi:s-v1:1 message/user "after compaction"`,
			},
			windows: []string{"pi:s-v1:0", "pi:s-v1:1"}, headWin: "pi:s-v1:1", known: true, ord: 1,
		},
		{
			file: "v2_hookmessage.jsonl",
			want: []string{
				`1 @2 pi:s-v2:0 message/user "v2 prompt"`,
				`2 @3 pi:s-v2:0 attachment/system "hook says hi"`,
				`3 @4 pi:s-v2:0 message/assistant "v2 answer"`,
			},
			windows: []string{"pi:s-v2:0"}, headWin: "pi:s-v2:0", known: true,
		},
		{
			// Unknown types and roles link the tree but allocate nothing; an
			// unknown block type with clashing fields is skipped.
			file: "unknown_records.jsonl",
			want: []string{
				`1 @2 pi:s1:0 message/user "before unknowns"`,
				`2 @5 pi:s1:0 message/assistant "after unknowns"`,
				`3 @8 pi:s1:0 message/user "last"`,
			},
			windows: []string{"pi:s1:0"}, headWin: "pi:s1:0", known: true,
		},
		{
			// A failed request shows pi's recorded error, unless the
			// message has text of its own.
			file: "request_failed.jsonl",
			want: []string{
				`1 @2 pi:s1:0 message/user "Try again"`,
				`2 @3 pi:s1:0 message/assistant "[request failed] Connection error."`,
				`3 @4 pi:s1:0 message/assistant "partial"`,
			},
			windows: []string{"pi:s1:0"}, headWin: "pi:s1:0", known: true,
		},
		{
			file:    "torn_last_line.jsonl",
			want:    []string{`1 @2 pi:s1:0 message/user "committed"`},
			windows: []string{"pi:s1:0"}, headWin: "pi:s1:0", known: true,
		},
		{
			// A repeated identical record does not allocate again.
			file: "duplicate_repeat.jsonl",
			want: []string{
				`1 @2 pi:s1:0 message/user "once"`,
				`2 @3 pi:s1:0 message/assistant "reply"`,
				`3 @5 pi:s1:0 message/user "later"`,
			},
			windows: []string{"pi:s1:0"}, headWin: "pi:s1:0", known: true,
		},
		{
			// A valid forward parent reference is resolved after the read;
			// addresses stay in append order.
			file: "forward_reference.jsonl",
			want: []string{
				`1 @2 pi:s1:0 message/assistant "child first on disk"`,
				`2 @3 pi:s1:0 message/user "parent later on disk"`,
				`3 @4 pi:s1:0 message/user "leaf"`,
			},
			windows: []string{"pi:s1:0"}, headWin: "pi:s1:0", known: true,
		},
		{
			// A missing parent: the branch above it is an unknown segment,
			// spanning the compaction; the head's ordinal is not guessed.
			file: "missing_parent.jsonl",
			want: []string{
				`2 @3 pi:s1:unknown:deadbeef message/assistant "my parent is gone"`,
				`3 @4 pi:s1:unknown:deadbeef notice/system "compacted over a gap"`,
				`4 @5 pi:s1:unknown:deadbeef message/user "head in unknown segment"`,
			},
			windows: []string{"pi:s1:unknown:deadbeef"}, headWin: "pi:s1:unknown:deadbeef", known: false,
			notes: []history.NoteKind{history.NoteGap, history.NoteUnknownSegment},
		},
		{
			// A retained boot re-anchors an unknown ancestry to the ordinal
			// it names; a boot carried by a compaction names its window
			// instead of advancing again (a clone's boot names the parent's
			// session id); a user quoting a marker moves nothing.
			file: "boot_marker.jsonl",
			want: []string{
				`1 @2 pi:s1:unknown:gone0001 message/user "in the dark"`,
				`2 @3 pi:s1:unknown:gone0001 message/user "quoting <notesoup-boot window=\"pi:s1:9\"> moves nothing"`,
				`3 @4 pi:s1:3 attachment/system "<notesoup-boot window=\"pi:s1:3\">\nnotes..."`,
				`4 @5 pi:s1:3 message/user "anchored"`,
				`5 @6 pi:s1:4 notice/system "plain compaction"`,
				`6 @7 pi:s1:4 notice/system "<notesoup-boot window=\"pi:other:4\">\nreset boot"`,
				`7 @8 pi:s1:4 message/user "after reset"`,
			},
			windows: []string{"pi:s1:3", "pi:s1:4", "pi:s1:unknown:gone0001"}, headWin: "pi:s1:4", known: true, ord: 4,
			notes: []history.NoteKind{history.NoteGap, history.NoteUnknownSegment},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.head, func(t *testing.T) {
			got, sum, err := decodeFile(t, filepath.Join(testdataDir, tc.file), history.DecodeOptions{Head: tc.head})
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.want, "\n     "))
			}
			if !reflect.DeepEqual(sum.Windows, tc.windows) {
				t.Errorf("windows = %v, want %v", sum.Windows, tc.windows)
			}
			if sum.HeadWindow != tc.headWin || sum.HeadKnown != tc.known || sum.HeadOrdinal != tc.ord {
				t.Errorf("head = %s known=%v ord=%d, want %s known=%v ord=%d", sum.HeadWindow, sum.HeadKnown, sum.HeadOrdinal, tc.headWin, tc.known, tc.ord)
			}
			var kinds []history.NoteKind
			for _, n := range sum.Notes {
				kinds = append(kinds, n.Kind)
			}
			if !reflect.DeepEqual(kinds, tc.notes) {
				t.Errorf("notes = %v, want %v", sum.Notes, tc.notes)
			}
			// The incomplete-history notice goes with a gap, naming it.
			gap := ""
			for _, n := range sum.Notes {
				if n.Kind == history.NoteGap {
					gap = n.Ref
				}
			}
			if (gap != "") != (sum.Notice != "") || !strings.Contains(sum.Notice, gap) || len(sum.Notice) > history.MaxNoticeBytes {
				t.Errorf("notice = %q, gap = %q", sum.Notice, gap)
			}
			for _, g := range got {
				if strings.Contains(g, "SECRET") || strings.Contains(g, "AAAA") || strings.Contains(g, "BBBB") {
					t.Errorf("thinking or image payload leaked: %s", g)
				}
			}
		})
	}
}

func TestDecodeRefusals(t *testing.T) {
	tests := []struct {
		file   string
		head   string
		line   int
		reason string // substring of the refusal
	}{
		{"refuse_malformed_line.jsonl", "", 3, "malformed JSON"},
		{"refuse_malformed_middle.jsonl", "", 3, "malformed JSON"},
		{"refuse_toolcall_no_id.jsonl", "", 3, `toolCall has no string "id"`},
		{"refuse_text_not_string.jsonl", "", 3, "content block 0"},
		{"refuse_toolresult_no_callid.jsonl", "", 3, `no string "toolCallId"`},
		{"refuse_compaction_no_summary.jsonl", "", 3, `no string "summary"`},
		{"refuse_message_no_message.jsonl", "", 3, `no "message" object`},
		{"refuse_entry_no_id.jsonl", "", 3, `no string "id"`},
		{"refuse_type_not_string.jsonl", "", 3, `"type" is not a string`},
		{"refuse_parent_not_string.jsonl", "", 3, "invalid message entry"},
		{"refuse_user_content_number.jsonl", "", 3, "neither a string nor an array"},
		{"refuse_not_an_object.jsonl", "", 3, "not a JSON object"},
		{"refuse_conflicting_duplicate.jsonl", "", 3, "conflicts with the different entry of the same id on line 2"},
		{"refuse_cycle.jsonl", "", 2, "cycle"},
		{"refuse_no_header.jsonl", "", 1, "not \"session\""},
		{"refuse_future_version.jsonl", "", 1, "version 4 is not supported"},
		{"refuse_header_no_id.jsonl", "", 1, "no string id"},
		{"refuse_empty.jsonl", "", 0, "empty"},
		{"refuse_torn_header.jsonl", "", 1, "header is incomplete"},
		{"v3_tools.jsonl", "nosuchid", 0, "not in the file yet"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(testdataDir, tc.file)
			got, sum, err := decodeFile(t, path, history.DecodeOptions{Head: tc.head})
			var re *history.Refusal
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *history.Refusal", err)
			}
			if re.Line != tc.line || !strings.Contains(re.Reason, tc.reason) || re.Path != path {
				t.Errorf("refusal = %q (line %d), want line %d containing %q", re.Error(), re.Line, tc.line, tc.reason)
			}
			// Only a write in progress is worth retrying.
			retry := map[string]bool{"refuse_empty.jsonl": true, "refuse_torn_header.jsonl": true, "v3_tools.jsonl": true}
			if re.Retry != retry[tc.file] {
				t.Errorf("Retry = %v, want %v", re.Retry, retry[tc.file])
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if len(got) != 0 {
				t.Errorf("refused decode emitted %v", got)
			}
			if len(sum.Notes) != 1 || sum.Notes[0].Kind != history.NoteRefusal {
				t.Errorf("notes = %v, want one refusal", sum.Notes)
			}
		})
	}
}

// TestAddressesStableWhenFileGrows appends to a session (a new branch from an
// old entry) and checks earlier addresses do not move.
func TestAddressesStableWhenFileGrows(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testdataDir, "v3_compaction_branch.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "grow.jsonl")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _, err := decodeFile(t, path, history.DecodeOptions{Head: "b0000009"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(`{"type":"message","id":"b00000ff","parentId":"b0000009","timestamp":"2026-12-02T10:00:20.000Z","message":{"role":"user","content":"resumed on the old branch","timestamp":20}}` + "\n")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	after, sum, err := decodeFile(t, path, history.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, before...), `11 @16 pi:s1:1 message/user "resumed on the old branch"`)
	if !reflect.DeepEqual(after, want) {
		t.Errorf("after growth:\n got %v\nwant %v", after, want)
	}
	if sum.HeadWindow != "pi:s1:1" || !sum.HeadKnown {
		t.Errorf("head = %s/%v, want pi:s1:1 known", sum.HeadWindow, sum.HeadKnown)
	}
}

// TestEmitErrorStops checks an error returned by emit ends the decode and
// comes back unchanged.
func TestEmitErrorStops(t *testing.T) {
	stop := errors.New("page full")
	n := 0
	_, err := Decoder{}.Decode(history.Session{Path: filepath.Join(testdataDir, "v3_tools.jsonl")}, history.DecodeOptions{}, func(history.Event) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("err = %v after %d events, want the emit error after 2", err, n)
	}
}

// TestFastPathAgrees checks, on every line of every fixture and recording,
// that the single-scan path decodes exactly what the general path does.
func TestFastPathAgrees(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdataDir, "*.jsonl"))
	rec, _ := filepath.Glob(filepath.Join(transcriptsDir, "*", "*.jsonl"))
	fast := 0
	for _, path := range append(files, rec...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		version := versionCurrent
		for i, line := range strings.Split(string(data), "\n") {
			if i == 0 {
				if _, v, _, err := parseHeader([]byte(line)); err == nil {
					version = v
				}
				continue
			}
			for _, withText := range []bool{false, true} {
				f, ok := parseEntryFast([]byte(line), version, withText)
				if !ok {
					continue
				}
				fast++
				g, err := parseEntryGeneral([]byte(line), version, withText)
				if err != nil || !reflect.DeepEqual(f, g) {
					t.Errorf("%s:%d (text %v): fast %+v, general %+v (%v)", path, i+1, withText, f, g, err)
				}
			}
		}
	}
	if fast < 100 {
		t.Errorf("only %d lines took the fast path", fast)
	}
}

// TestRetainedBootAfterAMissingParent: a compaction that carries a retained
// boot and names a parent the file lacks re-anchors its window (the boot
// names it) while the history before it is still reported missing. The
// fuzzer found this case panicking (testdata/fuzz/FuzzPiDecode).
func TestRetainedBootAfterAMissingParent(t *testing.T) {
	lines := []string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-12-02T10:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-02T10:00:01.000Z","message":{"role":"user","content":"hello"}}`,
		`{"type":"compaction","id":"c1","parentId":"gone","timestamp":"2026-12-02T10:00:02.000Z","summary":"<notesoup-boot window=\"pi:s1:4\">","firstKeptEntryId":"a1","tokensBefore":5}`,
	}
	path := filepath.Join(t.TempDir(), "2026-12-02T10-00-00-000Z_s1.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, sum, err := decodeFile(t, path, history.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var gaps, unknown int
	for _, n := range sum.Notes {
		switch n.Kind {
		case history.NoteGap:
			gaps++
			if n.Ref != "gone" {
				t.Errorf("gap note names %q, want the missing parent %q", n.Ref, "gone")
			}
		case history.NoteUnknownSegment:
			unknown++
		}
	}
	if gaps != 1 || unknown != 0 {
		t.Errorf("notes %+v: want one gap and no unknown segment (the boot names the window)", sum.Notes)
	}
	if sum.HeadWindow != "pi:s1:4" {
		t.Errorf("head window %q, want pi:s1:4 (the retained boot's)", sum.HeadWindow)
	}
}
