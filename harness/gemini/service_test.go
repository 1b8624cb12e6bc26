package gemini_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/harness/gemini"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
)

// TestRecordedChatsThroughService finds the recorded chats the way every
// front end does, through service over the built-in harnesses in-process:
// `history sessions` lists them with their ids, folders and first prompts,
// `history list --session gemini:<id>` (and the short id search shows)
// reads one, and `search` finds a chat by a tool's output.
func TestRecordedChatsThroughService(t *testing.T) {
	tmp := t.TempDir()
	for _, v := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "NOTESOUP_HOME", "GEMINI_CLI_HOME", "CODEX_HOME"} {
		t.Setenv(v, filepath.Join(tmp, v))
	}
	roots, err := filepath.Glob("../../testdata/transcripts/gemini/*")
	if err != nil || len(roots) == 0 {
		t.Fatalf("no recorded chats: %v", err)
	}
	var files []string
	for i, r := range roots {
		roots[i], _ = filepath.Abs(r)
		f, _ := filepath.Glob(filepath.Join(roots[i], "*", "chats", "*.jsonl"))
		files = append(files, f...)
	}
	opts := []service.Option{service.WithHome(filepath.Join(tmp, "notes")), service.WithRoots(gemini.Name, roots...)}
	for _, h := range builtins.Names() {
		if h != gemini.Name {
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
		if ss.Harness != gemini.Name || len(ss.ID) != 36 || !strings.HasPrefix(ss.Cwd, "/tmp/notesoup-record/gemini-") {
			t.Errorf("listed %+v; want gemini chats with their whole ids and folders", ss)
		}
		if ss.Title == "Read notes.txt, print a greeting and list the directory" {
			tools = ss
		}
	}
	if len(sessions) != len(files) || tools.ID == "" {
		t.Fatalf("history sessions: %d sessions %+v, want the %d recorded chats, one titled by the tools prompt", len(sessions), sessions, len(files))
	}

	for _, sel := range []string{gemini.Name + ":" + tools.ID, gemini.Name + ":" + tools.ID[:8], "latest"} {
		page, sess, err := s.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: sel, ListQuery: history.ListQuery{Query: "hello from notesoup"}}, nil)
		if sel == "latest" {
			if err != nil || sess.Harness != gemini.Name {
				t.Fatalf("latest: %+v %v", sess, err)
			}
			continue
		}
		if err != nil || sess.Path != tools.Path || len(page.Entries) != 2 || !strings.Contains(page.Text, "Output: hello from notesoup") {
			t.Fatalf("history list --session %s: session %+v, %d entries, err %v:\n%s", sel, sess, len(page.Entries), err, page.Text)
		}
	}

	res, err := s.Search(ctx, "oat milk", service.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 || len(res.Sessions) != 1 || res.Sessions[0].Session.Harness != gemini.Name ||
		!strings.Contains(res.Sessions[0].Session.Path, "/compact/") || res.Sessions[0].Count < 3 {
		t.Fatalf("search \"oat milk\": %+v", res)
	}
}
