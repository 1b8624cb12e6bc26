package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

// brief is what a test checks of an event.
type brief struct {
	seq    int64
	window int // the window's ordinal
	kind   contract.Kind
	role   contract.Role
	tool   string
	text   string // a prefix of the event's text
	pair   int64
}

func briefOf(id string, e contract.Event) brief {
	w := 0
	for i := 1; i < 10; i++ {
		if e.Window == windowID(id, i) {
			w = i
		}
	}
	return brief{e.Seq, w, e.Kind, e.Role, e.ToolName, e.Text, e.PairSeq}
}

// TestDecodeRecorded decodes the databases the pinned OpenCode wrote
// (e2e/record.sh): what each shows, in which window, paired how.
func TestDecodeRecorded(t *testing.T) {
	isolate(t)
	const (
		msg, notice, use, res = contract.KindMessage, contract.KindNotice, contract.KindToolUse, contract.KindToolResult
		user, asst, sys, tool = contract.RoleUser, contract.RoleAssistant, contract.RoleSystem, contract.RoleTool
	)
	tests := []struct {
		scenario string
		title    string // picks the session when the database holds several
		want     []brief
		windows  int
		notice   string // a substring of the summary's notice
	}{
		{"tools", "Reading the shopping note", []brief{
			{1, 1, msg, user, "", "Read notes.txt, print a greeting", 0},
			{2, 1, msg, asst, "", "Let me read the note.", 0},
			{3, 1, use, tool, "read", "", 4},
			{4, 1, res, tool, "read", "<path>", 3},
			{5, 1, msg, asst, "", "Now two things at once.", 0},
			{6, 1, use, tool, "bash", "", 7},
			{7, 1, res, tool, "bash", "hello from notesoup", 6},
			{8, 1, use, tool, "glob", "", 9},
			{9, 1, res, tool, "glob", "/tmp/notesoup-record/opencode-tools/work/notes.txt", 8},
			{10, 1, msg, asst, "", "Done: the note says to buy milk", 0},
		}, 1, ""},
		{"subagent", "Subagent reads the note", []brief{
			{1, 1, msg, user, "", "Use a subagent to read notes.txt", 0},
			{2, 1, msg, asst, "", "I will ask a subagent.", 0},
			{3, 1, use, tool, "task", "", 4},
			{4, 1, res, tool, "task", `<task id="ses_`, 3},
			{5, 1, msg, asst, "", "The subagent reports", 0},
		}, 1, ""},
		{"subagent", "Read the note (@general subagent)", []brief{
			{1, 1, msg, user, "", "Read notes.txt and report what it says.", 0},
			{2, 1, msg, asst, "", "Reading it.", 0},
			{3, 1, use, tool, "read", "", 4},
			{4, 1, res, tool, "read", "<path>", 3},
			{5, 1, msg, asst, "", "The note says: buy milk.", 0},
		}, 1, "a subagent's session, started by a task tool call of opencode:ses_"},
		{"compact", "Shopping list with compaction", []brief{
			{1, 1, msg, user, "", "Read notes.txt and remember it", 0},
			{2, 1, msg, asst, "", "Let me read the note.", 0},
			{3, 1, use, tool, "read", "", 4},
			{4, 1, res, tool, "read", "<path>", 3},
			{5, 1, msg, asst, "", "The note says to buy milk.", 0},
			{6, 2, notice, sys, "", "## Objective", 0},         // the compaction's summary
			{7, 2, notice, sys, "", "Continue if you have", 0}, // OpenCode's synthetic prompt after it
			{8, 2, msg, asst, "", "Nothing more to do", 0},
		}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.scenario+"/"+tc.title, func(t *testing.T) {
			root, _ := fixture(t, tc.scenario)
			sessions := list(t, root, contract.SessionFilter{})
			i := slices.IndexFunc(sessions, func(s contract.Session) bool { return s.Title == tc.title })
			if i < 0 {
				t.Fatalf("no session titled %q in %+v", tc.title, sessions)
			}
			s := sessions[i]
			evs, sum, err := decodeAll(root, s)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(evs) != len(tc.want) {
				for _, e := range evs {
					t.Logf("%+v", briefOf(s.ID, e))
				}
				t.Fatalf("%d events, want %d", len(evs), len(tc.want))
			}
			for i, e := range evs {
				got, want := briefOf(s.ID, e), tc.want[i]
				if !strings.HasPrefix(got.text, want.text) {
					t.Errorf("event %d text %q, want it to start %q", i, got.text, want.text)
				}
				got.text = want.text
				if got != want {
					t.Errorf("event %d: %+v, want %+v", i, got, want)
				}
				if e.Time.IsZero() {
					t.Errorf("event %d has no time", i)
				}
				if strings.Contains(e.Text, "I should look at the file first") {
					t.Errorf("event %d shows the reasoning part: %q", i, e.Text)
				}
			}
			if len(sum.Windows) != tc.windows || sum.HeadOrdinal != tc.windows || !sum.HeadKnown || sum.HeadWindow != windowID(s.ID, tc.windows) {
				t.Errorf("summary %+v, want %d windows with the last as the known head", sum, tc.windows)
			}
			if tc.notice == "" && sum.Notice != "" || !strings.Contains(sum.Notice, tc.notice) {
				t.Errorf("notice %q, want %q", sum.Notice, tc.notice)
			}
			if len(sum.Notice) > contract.MaxNoticeBytes {
				t.Errorf("notice is %d bytes, over %d", len(sum.Notice), contract.MaxNoticeBytes)
			}
			// Reading created nothing beside the database: no -wal, no -shm.
			if names := dirNames(t, root); !slices.Equal(names, []string{"opencode.db"}) {
				t.Errorf("the root holds %v after reading, want only opencode.db", names)
			}
		})
	}
}

func TestDecodeStops(t *testing.T) {
	isolate(t)
	root, _ := fixture(t, "tools")
	s := list(t, root, contract.SessionFilter{})[0]
	n := 0
	_, err := Harness{}.Decode(context.Background(), contract.DecodeRequest{Session: s, Roots: []string{root}}, func(contract.Event) error {
		n++
		if n == 2 {
			return contract.ErrStopped
		}
		return nil
	})
	if !errors.Is(err, contract.ErrStopped) || n != 2 {
		t.Errorf("after stopping at 2: %d events, err %v; want 2 and ErrStopped unchanged", n, err)
	}
	mine := errors.New("the consumer's own error")
	_, err = Harness{}.Decode(context.Background(), contract.DecodeRequest{Session: s, Roots: []string{root}}, func(contract.Event) error { return mine })
	if err != mine {
		t.Errorf("err %v, want the consumer's error unchanged", err)
	}
}
