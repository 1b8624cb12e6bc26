package service_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
)

// samplesRoot is where each harness's recordings under samples/ keep
// their sessions (the folder a harness root names).
var samplesRoot = map[string]string{
	"claude": "claude/projects",
	"pi":     "pi/sessions",
	"codex":  "codex/sessions",
	"gemini": "gemini/.gemini/tmp",
}

// indexedServices copies the transcripts under testdata/transcripts (or,
// with samples, the recordings under samples/: the same session ids, so
// never both at once) into a temporary root per harness and returns two
// in-process services over them: one that reads the search index under
// cache, one with no index; and cache, with the index built by a search.
func indexedServices(t *testing.T, samples bool) (withIndex, without *service.Service, cache string) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("NOTESOUP_HOME", t.TempDir())
	base := t.TempDir()
	var opts []service.Option
	for _, h := range builtins.Names() {
		var roots []string
		if src := filepath.Join(repoRoot(), "testdata", "transcripts", h); !samples && dirExists(src) {
			dst := filepath.Join(base, h, "testdata")
			if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			roots = append(roots, dst)
		}
		if rel, ok := samplesRoot[h]; ok && samples {
			dst := filepath.Join(base, h, "samples")
			if err := os.CopyFS(dst, os.DirFS(filepath.Join(repoRoot(), "samples", rel))); err != nil {
				t.Fatal(err)
			}
			roots = append(roots, dst)
		}
		if len(roots) == 0 {
			roots = []string{t.TempDir()}
		}
		opts = append(opts, service.WithRoots(h, roots...))
	}
	cache = t.TempDir()
	home := service.WithHome(filepath.Join(t.TempDir(), "home"))
	var err error
	withIndex, err = service.New(&builtins.Local{}, append(opts, home, service.WithSearchCache(cache))...)
	if err != nil {
		t.Fatal(err)
	}
	without, err = service.New(&builtins.Local{}, append(opts, home)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withIndex.Search(context.Background(), "the", service.SearchOptions{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	return withIndex, without, cache
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// listJSON is a page (or error) as a front end sees it: the JSON of the
// page and its text, or the error.
func listJSON(t *testing.T, s *service.Service, sel string, q history.ListQuery) string {
	t.Helper()
	page, _, err := s.HistoryList(context.Background(), service.Caller{}, history.ListArgs{Session: sel, ListQuery: q}, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	b, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + page.Text
}

// TestHistoryListIndexMatchesDecode lists every session of every recorded
// transcript with a table of queries and paging shapes, from the search
// index and by decoding, and requires the same page byte for byte. Times
// are compared in a zone that is not UTC, so an instant read back from the
// index in another zone than the decode's shows.
func TestHistoryListIndexMatchesDecode(t *testing.T) {
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.FixedZone("test+0530", 5*3600+1800)
	for _, samples := range []bool{false, true} {
		name := "testdata"
		if samples {
			name = "samples"
		}
		t.Run(name, func(t *testing.T) { listIndexMatchesDecode(t, samples) })
	}
}

func listIndexMatchesDecode(t *testing.T, samples bool) {
	withIndex, without, _ := indexedServices(t, samples)
	ctx := context.Background()
	sessions, err := without.Sessions(ctx, history.SessionQuery{})
	if err != nil && len(sessions) == 0 {
		t.Fatal(err)
	}
	queries := []string{
		"the",              // common
		"THE",              // upper case
		"greeting",         // rarer
		"—",                // non-ASCII (an em dash, in many recordings)
		"’s",               // non-ASCII with an ASCII part
		"zq-found-nowhere", // nowhere
		"bash",             // a tool name (Claude)
		"read",             // a tool name (Pi) and a word
		"shell",            // a tool name (Codex)
	}
	shapes := []history.ListQuery{
		{},
		{Limit: 1},
		{Limit: 3},
		{Oldest: true, Limit: 2},
		{After: 3, Limit: 2},
		{After: 1000},
		{Before: 12, Limit: 3},
		{Before: 1},
		{Before: 2, Limit: 1},
		{Roles: []history.Role{history.RoleUser}},
		{Roles: []history.Role{history.RoleTool}, Limit: 4},
		{Window: "1", Limit: 5},
		{Window: "2"},
	}
	hits, noticed, compared := 0, 0, 0
	for _, sess := range sessions {
		sel := service.SessionRef(sess)
		for _, query := range queries {
			if service.IndexAnswers(ctx, withIndex, service.Caller{}, sel, query) {
				hits++
				// The notice is read from the index too (entry.Notice):
				// count the answers that carry one, so the comparison
				// below covers a non-empty notice.
				if page, _, err := without.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: sel, ListQuery: history.ListQuery{Query: query}}, nil); err == nil && page.Notice != "" {
					noticed++
				}
			}
			for _, shape := range shapes {
				shape.Query = query
				got := listJSON(t, withIndex, sel, shape)
				want := listJSON(t, without, sel, shape)
				compared++
				if got != want {
					t.Errorf("%s %+v:\nindex:  %s\ndecode: %s", sel, shape, got, want)
				}
			}
		}
	}
	// Most sessions are indexed (those of harnesses with unnamed forks are
	// decoded on every search, and so here): the index path must be taken.
	if hits < len(queries)*len(sessions)/2 {
		t.Errorf("the index answered %d of %d (session, query) pairs; want most", hits, len(queries)*len(sessions))
	}
	if !samples && noticed == 0 {
		t.Error("no (session, query) pair the index answered has a notice: the testdata's sessions with a missing parent (Pi's errors) are not covered")
	}
	t.Logf("%d sessions, %d pages compared, %d (session, query) pairs from the index, %d with a notice", len(sessions), compared, hits, noticed)
}

// TestHistoryListIndexSeesChanges changes an indexed session between two
// history_list calls, by an append and by a rewrite in place at the same
// size and modification time, and requires the second call to show the
// file as it is now, never the index's stale copy.
func TestHistoryListIndexSeesChanges(t *testing.T) {
	const sel = "pi:01a236a6-a2de-75bd-a83e-3ff443212984"
	ctx := context.Background()
	list := func(s *service.Service, query string) []string {
		t.Helper()
		page, sess, err := s.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: sel, ListQuery: history.ListQuery{Query: query}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sess.Path == "" {
			t.Fatal("no session path")
		}
		var out []string
		for _, e := range page.Entries {
			out = append(out, e.Snippet)
		}
		return out
	}
	pathOf := func(s *service.Service) string {
		_, sess, err := s.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: sel}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sess.Path
	}

	t.Run("append", func(t *testing.T) {
		withIndex, _, _ := indexedServices(t, false)
		if !service.IndexAnswers(ctx, withIndex, service.Caller{}, sel, "milk") {
			t.Fatal("the index does not answer the session before the change")
		}
		if got := list(withIndex, "zqappended"); len(got) != 0 {
			t.Fatalf("before the append: %q", got)
		}
		f, err := os.OpenFile(pathOf(withIndex), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString(`{"type":"message","id":"aa000001","parentId":"702da192","timestamp":"2026-12-02T12:08:00.000Z","message":{"role":"user","content":[{"type":"text","text":"zqappended word"}],"timestamp":1796213280000}}` + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := list(withIndex, "zqappended"); len(got) != 1 || got[0] != "zqappended word" {
			t.Fatalf("after the append: %q, want the appended message", got)
		}
		if service.IndexAnswers(ctx, withIndex, service.Caller{}, sel, "milk") {
			t.Error("the index answers a session that changed since it was indexed")
		}
	})

	t.Run("rewrite same size and mtime", func(t *testing.T) {
		withIndex, _, _ := indexedServices(t, false)
		if got := list(withIndex, "milk"); len(got) == 0 {
			t.Fatal("no match for milk before the rewrite")
		}
		path := pathOf(withIndex)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		changed := strings.ReplaceAll(string(data), "milk", "silk")
		if changed == string(data) {
			t.Fatal("the transcript no longer mentions milk; the test's rewrite no longer applies")
		}
		// In place: same inode, same size, the old modification time.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteAt([]byte(changed), 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if got := list(withIndex, "milk"); len(got) != 0 {
			t.Errorf("after the rewrite, milk still lists %q (stale index)", got)
		}
		if got := list(withIndex, "silk"); len(got) == 0 {
			t.Error("after the rewrite, silk lists nothing")
		}
	})
}
