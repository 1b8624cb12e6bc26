package copilot_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/harness/copilot"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
)

// TestRecordedSessionsThroughService finds the recorded sessions the way
// every front end does, through service over the built-in harnesses
// in-process: `history sessions` lists them with their ids, folders and
// titles from workspace.yaml, `history list --session copilot:<id>` (and
// the bare id, and latest) reads one, an ambiguous prefix is refused, and `search` finds a session by a
// tool's output and by a compaction's summary.
func TestRecordedSessionsThroughService(t *testing.T) {
	tmp := t.TempDir()
	for _, v := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "NOTESOUP_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME", "CODEX_HOME"} {
		t.Setenv(v, filepath.Join(tmp, v))
	}
	roots, err := filepath.Glob("../../testdata/transcripts/copilot/*")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, r := range roots {
		roots[i], _ = filepath.Abs(r)
		f, _ := filepath.Glob(filepath.Join(roots[i], "*", "events.jsonl"))
		files = append(files, f...)
	}
	if len(files) < 5 {
		t.Fatalf("%d recorded sessions, want 5: run e2e/record.sh", len(files))
	}
	opts := []service.Option{service.WithHome(filepath.Join(tmp, "notes")), service.WithRoots(copilot.Name, roots...)}
	for _, h := range builtins.Names() {
		if h != copilot.Name {
			opts = append(opts, service.WithRoots(h, t.TempDir()))
		}
	}
	s, err := service.New(&builtins.Local{}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	sessions, err := s.Sessions(ctx, history.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var tools history.Session
	for _, ss := range sessions {
		if ss.Harness != copilot.Name || len(ss.ID) != 36 || !strings.HasPrefix(ss.Cwd, "/tmp/notesoup-record/copilot-") {
			t.Errorf("listed %+v; want copilot sessions with their whole ids and folders", ss)
		}
		if ss.Title == "Read notes.txt, print a greeting and list the directory" {
			tools = ss
		}
	}
	if len(sessions) != len(files) || tools.ID == "" {
		t.Fatalf("history sessions: %d sessions %+v, want the %d recorded ones, one titled by the tools prompt", len(sessions), sessions, len(files))
	}

	// The recorded ids share their first 35 characters: a prefix is
	// refused as ambiguous, naming the candidates.
	if _, _, err := s.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: copilot.Name + ":" + tools.ID[:8]}, nil); err == nil ||
		!strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), tools.ID) {
		t.Fatalf("history list --session copilot:%s: err %v, want ambiguous naming %s", tools.ID[:8], err, tools.ID)
	}
	for _, sel := range []string{copilot.Name + ":" + tools.ID, tools.ID, "latest"} {
		page, sess, err := s.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: sel, ListQuery: history.ListQuery{Query: "hello from notesoup"}}, nil)
		if sel == "latest" {
			if err != nil || sess.Harness != copilot.Name {
				t.Fatalf("latest: %+v %v", sess, err)
			}
			continue
		}
		if err != nil || sess.Path != tools.Path || len(page.Entries) != 2 || !strings.Contains(page.Text, "hello from notesoup") {
			t.Fatalf("history list --session %s: session %+v, %d entries, err %v:\n%s", sel, sess, len(page.Entries), err, page.Text)
		}
	}

	for _, tc := range []struct{ query, scenario string }{
		{"hello from notesoup", "/tools/"},
		{"The user asked to read notes.txt and remember it", "/compact/"},
	} {
		res, err := s.Search(ctx, tc.query, service.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Errors) != 0 || len(res.Sessions) != 1 || res.Sessions[0].Session.Harness != copilot.Name ||
			!strings.Contains(res.Sessions[0].Session.Path, tc.scenario) || res.Sessions[0].Count < 1 {
			t.Fatalf("search %q: %+v", tc.query, res)
		}
	}
}
