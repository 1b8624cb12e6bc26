package codex

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

const testdataDir = "../../testdata/codex"

// Thread ids of the fork fixtures under testdata/codex/home.
const (
	parentID   = "01a23658-21b0-7443-baa4-3b60f4538362"
	childID    = "01a2365a-8d2c-7000-8000-000000000001"
	grandID    = "01a2365b-0000-7000-8000-000000000002"
	orphanID   = "01a2365c-0000-7000-8000-000000000003"
	legacyFork = "01a2365d-0000-7000-8000-000000000004"
	goneID     = "01a20000-dead-7000-8000-00000000beef"
)

func homeRoots(home string) []string {
	return rootsUnder(filepath.Join(testdataDir, home))
}

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

func decodeFile(t *testing.T, d Decoder, path string) ([]string, history.Summary, error) {
	t.Helper()
	var got []string
	var last int64
	sum, err := d.Decode(history.Session{Harness: Name, Path: path}, history.DecodeOptions{}, func(e history.Event) error {
		if e.Seq != last+1 {
			t.Errorf("seq %d emitted after %d: a rollout is linear, so seqs are dense", e.Seq, last)
		}
		last = e.Seq
		got = append(got, render(e))
		return nil
	})
	return got, sum, err
}

// rollout finds a fixture rollout by thread id.
func rollout(t *testing.T, home, id string) string {
	t.Helper()
	p, err := findRollout(homeRoots(home), id)
	if err != nil {
		t.Fatalf("fixture for %s: %v", id, err)
	}
	return p
}

func TestDecodeFiles(t *testing.T) {
	type tc struct {
		name    string
		path    string
		want    []string
		windows []string
		headWin string
		known   bool
		ord     int
		notes   []history.NoteKind
	}
	tests := []tc{
		{
			// 0.171 paginated: harness context and reasoning hidden, a call
			// item_completed reports failed marks its output, calls of
			// every kind paired by call_id (parallel MCP calls answered out
			// of order), namespaced MCP name qualified, the older
			// {content,success} output form, a pending call unpaired,
			// unknown types and payloads ignored.
			name: "paginated_tools", path: filepath.Join(testdataDir, "paginated_tools.jsonl"),
			want: []string{
				`1 @7 codex:t-pag:0 message/user "Run echo hello"`,
				`2 @9 codex:t-pag:0 message/assistant "Running it."`,
				`3 @10 codex:t-pag:0 tool_use/tool "" tool=exec_command#call_1 pair=4 input={"cmd":"echo hello"}`,
				`4 @13 codex:t-pag:0 tool_result/tool "Chunk ID: 5d21e2\nProcess exited with code 0\nOutput:\nhello\n" tool=exec_command#call_1 pair=3 error`,
				`5 @14 codex:t-pag:0 tool_use/tool "" tool=mcp__demo__echo#call_mcp_1 pair=8 input={"text":"ping"}`,
				`6 @15 codex:t-pag:0 tool_use/tool "" tool=mcp__demo__echo#call_mcp_2 pair=7 input={"text":"second"}`,
				`7 @16 codex:t-pag:0 tool_result/tool "Wall time: 0.0085 seconds\nOutput:\nECHO: second" tool=mcp__demo__echo#call_mcp_2 pair=6`,
				`8 @17 codex:t-pag:0 tool_result/tool "Wall time: 0.0120 seconds\nOutput:\n{\"echoed\":\"ping\"}" tool=mcp__demo__echo#call_mcp_1 pair=5`,
				"9 @18 codex:t-pag:0 tool_use/tool \"\" tool=apply_patch#call_patch pair=10 input=*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n",
				`10 @19 codex:t-pag:0 tool_result/tool "Exit code: 0\nOutput:\nSuccess." tool=apply_patch#call_patch pair=9`,
				`11 @20 codex:t-pag:0 tool_use/tool "" tool=local_shell#call_ls pair=12 input=ls -la`,
				`12 @21 codex:t-pag:0 tool_result/tool "permission denied" tool=local_shell#call_ls pair=11 error`,
				`13 @24 codex:t-pag:0 message/assistant "Done: hello"`,
				`14 @25 codex:t-pag:0 tool_use/tool "" tool=exec_command#call_pending pair=0 input={"cmd":"sleep 100"}`,
			},
			windows: []string{"codex:t-pag:0"}, headWin: "codex:t-pag:0", known: true,
		},
		{
			// 0.100 legacy: chat text duplicated as event_msg is shown once,
			// flat MCP names, compacted + context_compacted is one
			// compaction, a lone context_compacted is another, a reused
			// call_id pairs with the latest open call, an orphan output
			// stays unpaired.
			name: "legacy_0100", path: filepath.Join(testdataDir, "legacy_0100.jsonl"),
			want: []string{
				`1 @3 codex:t-leg:0 message/user "Call the echo tool"`,
				`2 @6 codex:t-leg:0 tool_use/tool "" tool=mcp__demo__echo#call_a pair=3 input={"text":"ping"}`,
				`3 @7 codex:t-leg:0 tool_result/tool "ECHO: ping" tool=mcp__demo__echo#call_a pair=2`,
				`4 @8 codex:t-leg:0 message/assistant "It said ping."`,
				`5 @10 codex:t-leg:1 notice/system "Another language model started to solve this problem and produced a summary:\nSUMMARY ONE"`,
				`6 @12 codex:t-leg:1 message/user "Again"`,
				`7 @13 codex:t-leg:1 tool_use/tool "" tool=mcp__demo__echo#call_a pair=8 input={"text":"again"}`,
				`8 @14 codex:t-leg:1 tool_result/tool "ECHO: again" tool=mcp__demo__echo#call_a pair=7`,
				`9 @15 codex:t-leg:1 tool_result/tool "nobody called me" tool=#call_orphan pair=0`,
				`10 @16 codex:t-leg:2 notice/system ""`,
				`11 @17 codex:t-leg:2 message/assistant "After a marker-only compaction"`,
			},
			windows: []string{"codex:t-leg:0", "codex:t-leg:1", "codex:t-leg:2"}, headWin: "codex:t-leg:2", known: true, ord: 2,
		},
		{
			// Paginated compaction: the model's summary (compaction_output)
			// is shown once, as the compacted notice; the ContextCompaction
			// item does not advance again; a call dropped by the compaction
			// stays unpaired and the re-issued one pairs.
			name: "compaction_paginated", path: filepath.Join(testdataDir, "compaction_paginated.jsonl"),
			want: []string{
				`1 @2 codex:t-cmp:0 message/user "Run echo and tell me the result"`,
				`2 @3 codex:t-cmp:0 tool_use/tool "" tool=exec_command#call_x pair=0 input={"cmd":"echo hi"}`,
				`3 @5 codex:t-cmp:1 notice/system "Another language model started to solve this problem and produced a summary:\nSUMMARY: ran echo"`,
				`4 @9 codex:t-cmp:1 tool_use/tool "" tool=exec_command#call_y pair=5 input={"cmd":"echo hi"}`,
				`5 @10 codex:t-cmp:1 tool_result/tool "hi" tool=exec_command#call_y pair=4`,
				`6 @11 codex:t-cmp:1 message/assistant "It printed hi."`,
			},
			windows: []string{"codex:t-cmp:0", "codex:t-cmp:1"}, headWin: "codex:t-cmp:1", known: true, ord: 1,
		},
		{
			// A failed turn is a notice carrying Codex's recorded error; a
			// successful task_complete is not.
			name: "turn_failed", path: filepath.Join(testdataDir, "turn_failed.jsonl"),
			want: []string{
				`1 @2 codex:t-err:0 message/user "Try again"`,
				`2 @3 codex:t-err:0 notice/system "[turn failed] HTTP 400: bad request"`,
			},
			windows: []string{"codex:t-err:0"}, headWin: "codex:t-err:0", known: true,
		},
		{
			name: "mixed_resumed", path: filepath.Join(testdataDir, "mixed_resumed.jsonl"),
			want: []string{
				`1 @2 codex:t-mix:0 message/user "old prompt"`,
				`2 @4 codex:t-mix:0 message/assistant "old answer"`,
				`3 @8 codex:t-mix:0 message/user "resumed prompt"`,
				`4 @10 codex:t-mix:0 message/assistant "resumed answer"`,
			},
			windows: []string{"codex:t-mix:0"}, headWin: "codex:t-mix:0", known: true,
		},
		{
			name: "torn_last_line", path: filepath.Join(testdataDir, "torn_last_line.jsonl"),
			want: []string{
				`1 @2 codex:t-cmp:0 message/user "Run echo and tell me the result"`,
				`2 @3 codex:t-cmp:0 tool_use/tool "" tool=exec_command#call_x pair=0 input={"cmd":"echo hi"}`,
				`3 @5 codex:t-cmp:1 notice/system "Another language model started to solve this problem and produced a summary:\nSUMMARY: ran echo"`,
				`4 @9 codex:t-cmp:1 tool_use/tool "" tool=exec_command#call_y pair=5 input={"cmd":"echo hi"}`,
				`5 @10 codex:t-cmp:1 tool_result/tool "hi" tool=exec_command#call_y pair=4`,
				`6 @11 codex:t-cmp:1 message/assistant "It printed hi."`,
			},
			windows: []string{"codex:t-cmp:0", "codex:t-cmp:1"}, headWin: "codex:t-cmp:1", known: true, ord: 1,
		},
	}
	parentRows := func(id string) []string {
		return []string{
			`1 @0 codex:` + id + `:0 message/user "parent prompt"`,
			`2 @0 codex:` + id + `:0 tool_use/tool "" tool=exec_command#call_p pair=3 input={"cmd":"pwd"}`,
			`3 @0 codex:` + id + `:0 tool_result/tool "/w/fork" tool=exec_command#call_p pair=2`,
			`4 @0 codex:` + id + `:1 notice/system "PARENT SUMMARY"`,
			`5 @0 codex:` + id + `:1 message/assistant "parent answer"`,
		}
	}
	fix := func(rows []string) []string { // the parent's own rows carry their lines
		out := append([]string{}, rows...)
		for i, l := range []string{"@2", "@3", "@4", "@5", "@7"} {
			out[i] = strings.Replace(out[i], "@0", l, 1)
		}
		return out
	}
	tests = append(tests,
		tc{
			// The parent itself, including what it appended after the fork.
			name: "fork_parent", path: rollout(t, "home", parentID),
			want:    append(fix(parentRows(parentID)), `6 @8 codex:`+parentID+`:1 message/user "parent resumed after the fork (not inherited)"`),
			windows: []string{"codex:" + parentID + ":0", "codex:" + parentID + ":1"}, headWin: "codex:" + parentID + ":1", known: true, ord: 1,
		},
		tc{
			// A paginated fork inherits the parent's prefix up to
			// history_base (not what the parent appended later), under its
			// own thread id, with the parent's compaction counted.
			name: "fork_child", path: rollout(t, "home", childID),
			want: append(parentRows(childID),
				`6 @2 codex:`+childID+`:1 message/user "child prompt"`,
				`7 @3 codex:`+childID+`:1 message/assistant "child answer (after the grandchild fork)"`),
			windows: []string{"codex:" + childID + ":0", "codex:" + childID + ":1"}, headWin: "codex:" + childID + ":1", known: true, ord: 1,
		},
		tc{
			// A fork of a fork (found in archived_sessions) resolves both
			// history_base links.
			name: "fork_grandchild", path: rollout(t, "home", grandID),
			want: append(parentRows(grandID),
				`6 @0 codex:`+grandID+`:1 message/user "child prompt"`,
				`7 @2 codex:`+grandID+`:1 message/user "grandchild prompt"`),
			windows: []string{"codex:" + grandID + ":0", "codex:" + grandID + ":1"}, headWin: "codex:" + grandID + ":1", known: true, ord: 1,
		},
		tc{
			// The parent is under no root: nothing is invented, the fork's
			// rows are an unknown segment (across its compaction) until a
			// notesoup boot in a developer message re-anchors the ordinal.
			name: "fork_orphan", path: rollout(t, "home", orphanID),
			want: []string{
				`1 @2 codex:` + orphanID + `:unknown:` + goneID + ` message/user "orphan fork prompt"`,
				`2 @3 codex:` + orphanID + `:unknown:` + goneID + ` notice/system "orphan summary"`,
				`3 @5 codex:` + orphanID + `:5 message/assistant "re-anchored"`,
			},
			windows: []string{"codex:" + orphanID + ":5", "codex:" + orphanID + ":unknown:" + goneID}, headWin: "codex:" + orphanID + ":5", known: true, ord: 5,
			notes: []history.NoteKind{history.NoteGap, history.NoteUnknownSegment},
		},
		tc{
			// A legacy fork copies the parent's lines, its session_meta
			// included; the first session_meta is the identity.
			name: "fork_legacy_copy", path: rollout(t, "home", legacyFork),
			want: []string{
				`1 @4 codex:` + legacyFork + `:0 message/user "Call the echo tool"`,
				`2 @7 codex:` + legacyFork + `:0 tool_use/tool "" tool=mcp__demo__echo#call_a pair=3 input={"text":"ping"}`,
				`3 @8 codex:` + legacyFork + `:0 tool_result/tool "ECHO: ping" tool=mcp__demo__echo#call_a pair=2`,
				`4 @9 codex:` + legacyFork + `:0 message/assistant "It said ping."`,
				`5 @11 codex:` + legacyFork + `:0 message/user "legacy fork prompt"`,
			},
			windows: []string{"codex:" + legacyFork + ":0"}, headWin: "codex:" + legacyFork + ":0", known: true,
		},
	)
	d := Decoder{Roots: homeRoots("home")}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sum, err := decodeFile(t, d, tc.path)
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
				if strings.Contains(g, "SECRET") || strings.Contains(g, "AAAA") || strings.Contains(g, "permissions instructions") || strings.Contains(g, "AGENTS.md") || strings.Contains(g, "environment_context") {
					t.Errorf("hidden content leaked: %s", g)
				}
			}
		})
	}
}

func TestDecodeRefusals(t *testing.T) {
	loopA := "01a2aaaa-0000-7000-8000-00000000000a"
	tests := []struct {
		file   string
		roots  []string
		line   int
		reason string
	}{
		{"refuse_malformed_line.jsonl", nil, 3, "malformed JSON"},
		{"refuse_call_no_call_id.jsonl", nil, 3, `function_call has no string "call_id"`},
		{"refuse_call_no_name.jsonl", nil, 3, `no string "name"`},
		{"refuse_output_no_call_id.jsonl", nil, 3, `function_call_output has no string "call_id"`},
		{"refuse_output_number.jsonl", nil, 3, "neither a string, an array nor an object"},
		{"refuse_content_object.jsonl", nil, 3, "not an array of content items"},
		{"refuse_text_not_string.jsonl", nil, 3, "message content item 0"},
		{"refuse_payload_not_object.jsonl", nil, 3, "not an object with a string type"},
		{"refuse_compacted_message_number.jsonl", nil, 3, "invalid compacted payload"},
		{"refuse_ordinal_string.jsonl", nil, 3, "not a rollout line"},
		{"refuse_not_an_object.jsonl", nil, 3, "not a rollout line"},
		{"refuse_no_session_meta.jsonl", nil, 1, "not a session_meta"},
		{"refuse_meta_no_id.jsonl", nil, 1, "not a session_meta with an id"},
		{"refuse_empty.jsonl", nil, 0, "empty"},
		{"refuse_torn_meta.jsonl", nil, 1, "incomplete"},
		{filepath.Join("loophome", "sessions", "rollout-2026-12-02T10-00-00-"+loopA+".jsonl"), homeRoots("loophome"), 1, "loop back to thread " + loopA},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			path := filepath.Join(testdataDir, tc.file)
			got, sum, err := decodeFile(t, Decoder{Roots: append([]string{}, tc.roots...)}, path)
			var re *history.Refusal
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *history.Refusal", err)
			}
			if re.Line != tc.line || !strings.Contains(re.Reason, tc.reason) {
				t.Errorf("refusal = %q (line %d), want line %d containing %q", re.Error(), re.Line, tc.line, tc.reason)
			}
			// Only a write in progress is worth retrying.
			retry := map[string]bool{"refuse_empty.jsonl": true, "refuse_torn_meta.jsonl": true}
			if re.Retry != retry[tc.file] {
				t.Errorf("Retry = %v, want %v", re.Retry, retry[tc.file])
			}
			if !strings.Contains(err.Error(), ".jsonl") {
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

// TestAddressesStableWhenFileGrows appends a resumed turn and checks earlier
// addresses and windows do not move.
func TestAddressesStableWhenFileGrows(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testdataDir, "torn_last_line.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rollout-grow.jsonl")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	before, _, err := decodeFile(t, Decoder{Roots: []string{}}, path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(`age","role":"user","content":[{"type":"input_text","text":"completed later"}]}}` + "\n")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	after, _, err := decodeFile(t, Decoder{Roots: []string{}}, path)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, before...), `7 @12 codex:t-cmp:1 message/user "completed later"`)
	if !reflect.DeepEqual(after, want) {
		t.Errorf("after growth:\n got %v\nwant %v", after, want)
	}
}

func TestEmitErrorStops(t *testing.T) {
	stop := errors.New("page full")
	n := 0
	_, err := Decoder{Roots: []string{}}.Decode(history.Session{Path: filepath.Join(testdataDir, "paginated_tools.jsonl")}, history.DecodeOptions{}, func(history.Event) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("err = %v after %d events, want the emit error after 3", err, n)
	}
}

// TestFastPathAgrees checks, on every line of every fixture and recording,
// that the single-scan path decodes exactly what the general path does.
func TestFastPathAgrees(t *testing.T) {
	var files []string
	for _, g := range []string{"*.jsonl", "home/*/*/*/*/*.jsonl", "home/*/*.jsonl", "../transcripts/codex/*/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(testdataDir, g))
		files = append(files, m...)
	}
	fast := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, withText := range []bool{false, true} {
				f, ok := parseRecordFast([]byte(line), withText)
				if !ok {
					continue
				}
				fast++
				g, err := parseRecordGeneral([]byte(line), withText)
				if err != nil || !reflect.DeepEqual(f, g) {
					t.Errorf("%s:%d (text %v): fast %+v, general %+v (%v)", path, i+1, withText, f, g, err)
				}
			}
		}
	}
	if fast < 200 {
		t.Errorf("only %d lines took the fast path", fast)
	}
}

// TestForkParentTruncated: a parent rollout shorter than the fork point
// shows what it holds, but the lost part may have held compactions, so no
// ordinal is guessed.
func TestForkParentTruncated(t *testing.T) {
	root := t.TempDir()
	parent, err := os.ReadFile(rollout(t, "home", parentID))
	if err != nil {
		t.Fatal(err)
	}
	child, err := os.ReadFile(rollout(t, "home", childID))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(parent), "\n")
	if err := os.WriteFile(filepath.Join(root, "rollout-p-"+parentID+".jsonl"), []byte(strings.Join(lines[:3], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	childPath := filepath.Join(root, "rollout-c-"+childID+".jsonl")
	if err := os.WriteFile(childPath, child, 0o600); err != nil {
		t.Fatal(err)
	}
	got, sum, err := decodeFile(t, Decoder{Roots: []string{root}}, childPath)
	if err != nil {
		t.Fatal(err)
	}
	seg := "codex:" + childID + ":unknown:" + parentID
	want := []string{
		`1 @0 ` + seg + ` message/user "parent prompt"`,
		`2 @0 ` + seg + ` tool_use/tool "" tool=exec_command#call_p pair=0 input={"cmd":"pwd"}`,
		`3 @2 ` + seg + ` message/user "child prompt"`,
		`4 @3 ` + seg + ` message/assistant "child answer (after the grandchild fork)"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if sum.HeadKnown || sum.HeadWindow != seg || len(sum.Notes) != 2 || sum.Notes[0].Kind != history.NoteGap || !strings.Contains(sum.Notice, parentID) {
		t.Errorf("summary = %+v", sum)
	}
}
