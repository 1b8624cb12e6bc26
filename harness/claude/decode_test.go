package claude

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

const (
	fixtureSID = "11111111-1111-4111-8111-111111111111"
	forkSID    = "22222222-2222-4222-8222-222222222222"
)

func fixture(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join("..", "..", "testdata", "history", "claude", name)
}

// decodeFixture decodes a hand-written transcript and renders each event as
// "seq window kind role [tool] text" with the session id shortened to S.
func decodeFixture(t *testing.T, name, sid, head string) ([]string, history.Summary, error) {
	t.Helper()
	var out []string
	sum, err := Decoder{}.Decode(history.Session{Harness: "claude", ID: sid, Path: fixture(name)},
		history.DecodeOptions{Head: head}, func(ev history.Event) error {
			s := fmt.Sprintf("%d %s %s %s", ev.Seq, ev.Window, ev.Kind, ev.Role)
			if ev.ToolName != "" || ev.ToolID != "" {
				s += fmt.Sprintf(" %s/%s", ev.ToolName, ev.ToolID)
			}
			if ev.PairSeq != 0 {
				s += fmt.Sprintf(" pair=%d", ev.PairSeq)
			}
			if ev.IsError {
				s += " error"
			}
			if ev.ToolInput != "" {
				s += " in=" + ev.ToolInput
			}
			s += " " + strings.ReplaceAll(ev.Text, "\n", "|")
			out = append(out, strings.TrimSpace(short(s, sid)))
			return nil
		})
	return out, sum, err
}

func short(w, sid string) string {
	if sid == "" {
		return w
	}
	return strings.ReplaceAll(w, sid, "S")
}

func TestDecodeFixtures(t *testing.T) {
	tests := []struct {
		name, file, sid, head string
		want                  []string
		windows               []string
		headWindow            string
		headKnown             bool
		gaps                  []string
	}{
		{
			name: "every row kind, pairing, pending call, hidden thinking and payloads", file: "basic.jsonl", sid: fixtureSID,
			want: []string{
				"1 claude:S:0 attachment system <system-reminder>Today is 2026-03-01</system-reminder>",
				"2 claude:S:0 message user Please list the files and say HELLO",
				"3 claude:S:0 message assistant",
				"4 claude:S:0 message assistant Listing the files now.",
				"5 claude:S:0 message assistant",
				`6 claude:S:0 tool_use tool Bash/toolu_1 pair=8 in={"command":"ls -la"}`,
				"7 claude:S:0 message user",
				"8 claude:S:0 tool_result tool Bash/toolu_1 pair=6 a.txt|b.txt",
				"9 claude:S:0 attachment system",
				"10 claude:S:0 message assistant Two files: a.txt and b.txt.",
				"11 claude:S:0 message user now read a.txt",
				"12 claude:S:0 message assistant",
				`13 claude:S:0 tool_use tool Read/toolu_2 pair=16 in={"file_path":"/work/proj/a.txt"}`,
				`14 claude:S:0 tool_use tool Read/toolu_3 in={"file_path":"/work/proj/b.txt"}`,
				"15 claude:S:0 message user",
				"16 claude:S:0 tool_result tool Read/toolu_2 pair=13 contents of a",
			},
			windows: []string{"claude:S:0"}, headWindow: "claude:S:0", headKnown: true,
		},
		{
			name: "native boundaries advance, preserved rows keep their window", file: "compact.jsonl", sid: fixtureSID,
			want: []string{
				"1 claude:S:0 message user first window question",
				"2 claude:S:0 message assistant first window answer",
				"3 claude:S:0 message user second question",
				"4 claude:S:0 message assistant kept verbatim answer",
				"5 claude:S:1 notice system Conversation compacted",
				"6 claude:S:1 notice system This session is being continued from a previous conversation. Summary: stuff",
				"7 claude:S:1 message user question after compaction",
				"8 claude:S:1 message assistant answer in window one",
				"9 claude:S:2 notice system Conversation compacted",
				"10 claude:S:2 notice system Summary two",
				"11 claude:S:2 message user window two question",
			},
			windows: []string{"claude:S:0", "claude:S:1", "claude:S:2"}, headWindow: "claude:S:2", headKnown: true,
		},
		{
			name: "a retained boot names its ordinal instead of advancing again", file: "boot.jsonl", sid: fixtureSID,
			want: []string{
				`1 claude:S:0 attachment system notes boot <notesoup-boot window="claude:S:0">`,
				"2 claude:S:0 message user hello",
				"3 claude:S:0 message assistant hi",
				"4 claude:S:1 notice system Conversation compacted",
				`5 claude:S:1 message user notes boot <notesoup-boot window="claude:S:1"> then handoff`,
				"6 claude:S:1 message user after reset",
				"7 claude:S:1 message assistant fresh window",
			},
			windows: []string{"claude:S:0", "claude:S:1"}, headWindow: "claude:S:1", headKnown: true,
		},
		{
			name: "hook-answered compaction: rewritten kept message and its children are in the new window", file: "hook_rewrite.jsonl", sid: fixtureSID,
			want: []string{
				"1 claude:S:0 message user hello",
				"2 claude:S:0 message assistant original answer",
				"3 claude:S:1 notice system Conversation compacted",
				`4 claude:S:1 message user boot <notesoup-boot window="claude:S:1"> handoff`,
				"5 claude:S:1 message assistant original answer",
				"6 claude:S:1 message user next question",
			},
			windows: []string{"claude:S:0", "claude:S:1"}, headWindow: "claude:S:1", headKnown: true,
		},
		{
			name: "missing ancestor: the suffix is an unknown segment, the disconnected prefix is not joined", file: "gap.jsonl", sid: fixtureSID,
			want: []string{
				"3 claude:S:unknown:missing-1 message user orphaned prompt",
				"4 claude:S:unknown:missing-1 message assistant orphaned answer",
				"5 claude:S:unknown:missing-1 notice system Conversation compacted",
				"6 claude:S:unknown:missing-1 notice system Summary",
				"7 claude:S:unknown:missing-1 message user after compaction, still unknown",
			},
			windows: []string{"claude:S:unknown:missing-1"}, headWindow: "claude:S:unknown:missing-1", gaps: []string{"missing-1"},
		},
		{
			name: "fork keeps the copied boot's ordinal under its own id", file: "fork_boot.jsonl", sid: forkSID,
			want: []string{
				"1 claude:S:unknown:old-leaf notice system Conversation compacted",
				`2 claude:S:3 message user notes boot <notesoup-boot window="claude:11111111-1111-4111-8111-111111111111:3">`,
				"3 claude:S:3 message user in the fork",
				"4 claude:S:3 message assistant fork answer",
			},
			windows: []string{"claude:S:3", "claude:S:unknown:old-leaf"}, headWindow: "claude:S:3", headKnown: true, gaps: []string{"old-leaf"},
		},
		{
			name: "fork without a boot has no known ordinal", file: "fork_noboot.jsonl", sid: forkSID,
			want: []string{
				"1 claude:S:unknown:old-leaf notice system Conversation compacted",
				"2 claude:S:unknown:old-leaf notice system Summary",
				"3 claude:S:unknown:old-leaf message user in the fork",
				"4 claude:S:unknown:old-leaf message assistant fork answer",
			},
			windows: []string{"claude:S:unknown:old-leaf"}, headWindow: "claude:S:unknown:old-leaf", gaps: []string{"old-leaf"},
		},
		{
			name: "fork of a compacted session: relinked logical parent is cut, not a cycle", file: "fork_relinked.jsonl", sid: forkSID,
			want: []string{
				"1 claude:S:unknown:m2 notice system Conversation compacted",
				"2 claude:S:unknown:m2 notice system Summary",
				"3 claude:S:unknown:m2 message assistant kept verbatim answer",
				"4 claude:S:unknown:m2 message user question in the fork",
				"5 claude:S:unknown:m2 message assistant fork answer",
			},
			windows: []string{"claude:S:unknown:m2"}, headWindow: "claude:S:unknown:m2", gaps: []string{"b1"},
		},
		{
			name: "rewind: newest non-attachment leaf wins, sibling hidden, addresses kept", file: "branch.jsonl", sid: fixtureSID,
			want: []string{
				"1 claude:S:0 message user start",
				"2 claude:S:0 message assistant first reply",
				"5 claude:S:0 message user rewound prompt",
				"6 claude:S:0 message assistant kept reply",
			},
			windows: []string{"claude:S:0"}, headWindow: "claude:S:0", headKnown: true,
		},
		{
			name: "live head selects the abandoned branch", file: "branch.jsonl", sid: fixtureSID, head: "a9",
			want: []string{
				"1 claude:S:0 message user start",
				"2 claude:S:0 message assistant first reply",
				"3 claude:S:0 message user abandoned branch prompt",
				"4 claude:S:0 message assistant abandoned reply",
				"7 claude:S:0 attachment system <system-reminder>late attachment</system-reminder>",
			},
			windows: []string{"claude:S:0"}, headWindow: "claude:S:0", headKnown: true,
		},
		{
			name: "parallel calls: dangling sibling leaves are neither the head nor cut off", file: "parallel.jsonl", sid: fixtureSID,
			want: []string{
				"1 claude:S:0 message user do two things",
				"2 claude:S:0 message assistant Two at once.",
				"3 claude:S:0 message assistant",
				`4 claude:S:0 tool_use tool Bash/t1 pair=10 in={"command":"ls"}`,
				"5 claude:S:0 message assistant",
				`6 claude:S:0 tool_use tool Read/t2 pair=8 in={"file_path":"n.txt"}`,
				"7 claude:S:0 message user",
				"8 claude:S:0 tool_result tool Read/t2 pair=6 note text",
				"9 claude:S:0 message user",
				"10 claude:S:0 tool_result tool Bash/t1 pair=4 n.txt",
				"11 claude:S:0 message assistant Both done.",
				"12 claude:S:0 attachment system",
			},
			windows: []string{"claude:S:0"}, headWindow: "claude:S:0", headKnown: true,
		},
		{
			name: "forward parent references resolve without reallocating", file: "forward.jsonl", sid: fixtureSID,
			want: []string{
				"1 claude:S:0 message user second prompt",
				"2 claude:S:0 message user first prompt",
				"3 claude:S:0 message assistant first reply",
				"4 claude:S:0 message assistant second reply",
			},
			windows: []string{"claude:S:0"}, headWindow: "claude:S:0", headKnown: true,
		},
		{
			name: "identical repeat does not allocate", file: "duplicate.jsonl", sid: fixtureSID,
			want:    []string{"1 claude:S:0 message user hello", "2 claude:S:0 message assistant reply", "3 claude:S:0 message user next"},
			windows: []string{"claude:S:0"}, headWindow: "claude:S:0", headKnown: true,
		},
		{
			name: "incomplete final line tolerated", file: "truncated.jsonl", sid: fixtureSID,
			want:    []string{"1 claude:S:0 message user hello", "2 claude:S:0 message assistant reply"},
			windows: []string{"claude:S:0"}, headWindow: "claude:S:0", headKnown: true,
		},
		{
			name: "session id from the file name when the session has none", file: "duplicate.jsonl", sid: "",
			want:    []string{},
			windows: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sum, err := decodeFixture(t, tc.file, tc.sid, tc.head)
			if tc.sid == "" {
				// duplicate.jsonl's rows name fixtureSID, not "duplicate".
				var e *history.Refusal
				if !errors.As(err, &e) || !strings.Contains(err.Error(), `transcript of session "duplicate"`) || e.Line != 1 {
					t.Fatalf("want a session mismatch refusal at line 1 naming the file's id, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.want, "\n     "))
			}
			var ws []string
			for _, w := range sum.Windows {
				ws = append(ws, short(w, tc.sid))
			}
			if strings.Join(ws, ",") != strings.Join(tc.windows, ",") {
				t.Errorf("windows = %v, want %v", ws, tc.windows)
			}
			if short(sum.HeadWindow, tc.sid) != tc.headWindow || sum.HeadKnown != tc.headKnown {
				t.Errorf("head = %s known=%v, want %s known=%v", sum.HeadWindow, sum.HeadKnown, tc.headWindow, tc.headKnown)
			}
			var gaps []string
			for _, n := range sum.Notes {
				if n.Kind == history.NoteGap {
					gaps = append(gaps, n.Ref)
				}
			}
			if strings.Join(gaps, ",") != strings.Join(tc.gaps, ",") {
				t.Errorf("gaps = %v, want %v", gaps, tc.gaps)
			}
			notice := IncompleteHistoryNotice(sum)
			if (notice != "") != (len(tc.gaps) > 0) {
				t.Errorf("notice %q with gaps %v", notice, tc.gaps)
			}
			for _, g := range tc.gaps {
				if !strings.Contains(notice, g) {
					t.Errorf("notice %q does not name missing uuid %s", notice, g)
				}
			}
		})
	}
}

func TestDecodeRefusals(t *testing.T) {
	tests := []struct {
		file, head string
		line       int
		retry      bool
		msg        string
	}{
		{file: "bad_malformed.jsonl", line: 2, msg: "malformed JSONL line"},
		{file: "bad_conflict.jsonl", line: 3, msg: "conflicting duplicate"},
		{file: "bad_sidechain.jsonl", line: 2, msg: "sidechain row"},
		{file: "bad_session.jsonl", line: 2, msg: "row of session"},
		{file: "bad_cycle.jsonl", line: 3, msg: "cycle"},
		{file: "bad_schema.jsonl", line: 2, msg: "tool_use block needs a non-empty id and name"},
		{file: "bad_message.jsonl", line: 2, msg: "invalid assistant row"},
		{file: "bad_rendered.jsonl", line: 2, msg: "rendered content must be a string"},
		{file: "bad_result.jsonl", line: 3, msg: "tool_result content must be a string"},
		{file: "bad_notype.jsonl", line: 2, msg: "not an object with a string type"},
		{file: "basic.jsonl", head: "not-written-yet", retry: true, msg: "not on disk yet"},
		{file: "missing-file.jsonl", msg: "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, _, err := decodeFixture(t, tc.file, fixtureSID, tc.head)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("want refusal containing %q, got %v", tc.msg, err)
			}
			if !strings.Contains(err.Error(), tc.file) {
				t.Errorf("refusal %q does not name the file", err)
			}
			var e *history.Refusal
			if tc.file == "missing-file.jsonl" {
				return
			}
			if !errors.As(err, &e) {
				t.Fatalf("refusal is %T, want *history.Refusal", err)
			}
			if e.Line != tc.line || e.Retry != tc.retry {
				t.Errorf("line=%d retry=%v, want line=%d retry=%v", e.Line, e.Retry, tc.line, tc.retry)
			}
		})
	}
}

// TestGrowingFileKeepsAddresses appends the missing ancestor of gap.jsonl:
// earlier addresses do not move, the late record takes the next address,
// the ordinals become known and the gap notice goes away.
func TestGrowingFileKeepsAddresses(t *testing.T) {
	data, err := os.ReadFile(fixture("gap.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), fixtureSID+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	before, sum, err := decodeFixture(t, path, fixtureSID, "")
	if err != nil || sum.HeadKnown || IncompleteHistoryNotice(sum) == "" {
		t.Fatalf("before: %v, %+v", err, sum)
	}
	late := `{"parentUuid":"m1","isSidechain":false,"type":"user","uuid":"missing-1","timestamp":"2026-03-01T10:00:09.000Z","sessionId":"` +
		fixtureSID + `","message":{"role":"user","content":"the late prompt"}}` + "\n"
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(late)
	f.Close()
	after, sum, err := decodeFixture(t, path, fixtureSID, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1 claude:S:0 message user root prompt",
		"2 claude:S:0 message assistant root answer",
		"3 claude:S:0 message user orphaned prompt",
		"4 claude:S:0 message assistant orphaned answer",
		"5 claude:S:1 notice system Conversation compacted",
		"6 claude:S:1 notice system Summary",
		"7 claude:S:1 message user after compaction, still unknown",
		"8 claude:S:0 message user the late prompt",
	}
	if strings.Join(after, "\n") != strings.Join(want, "\n") {
		t.Errorf("after:\n%s", strings.Join(after, "\n"))
	}
	if !sum.HeadKnown || sum.HeadOrdinal != 1 || IncompleteHistoryNotice(sum) != "" {
		t.Errorf("summary after the gap filled: %+v", sum)
	}
	// Every event seen before keeps its seq.
	for _, b := range before {
		seq := strings.Fields(b)[0]
		found := false
		for _, a := range after {
			if strings.Fields(a)[0] == seq && strings.HasSuffix(a, b[strings.LastIndex(b, " "):]) {
				found = true
			}
		}
		if !found {
			t.Errorf("event %q moved", b)
		}
	}
}
