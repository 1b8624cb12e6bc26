package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/contract"
)

// Two GitHub tokens with no repeated 8-byte run, so leak's check is exact.
const (
	tok1 = "ghp_Zx9QwErTyUiOpAsDfGhJkLzXcVbNm1234567"
	tok2 = "ghp_Mn8PqRsTuVwXyZaBcDeFgHiJkLmNoP765432"
)

// leak returns the first 8 bytes of a token's hidden part (what follows
// its format marker and the 4 characters redact keeps) that out holds,
// or "".
func leak(out, token string) string {
	hidden := token[8:]
	for i := 0; i+8 <= len(hidden); i++ {
		if strings.Contains(out, hidden[i:i+8]) {
			return hidden[i : i+8]
		}
	}
	return ""
}

// TestSearchMasksBeforeMatchingAndCutting: the search matches and cuts
// snippets from masked text (history.VisibleEvent), so no answer, and no
// cache file, holds a token's hidden part, a snippet's edge inside a token
// included, and a query for a token's own text finds nothing. Both with
// the raw scan and without it (every file decoded).
func TestSearchMasksBeforeMatchingAndCutting(t *testing.T) {
	w := func(n int) string { return strings.Repeat("w", n) }
	files := map[string]string{
		// "greeting": 50 runes of lead start inside tok1; the snippet's
		// 160 runes end inside tok2.
		"edges": "Print " + w(84) + " " + tok1 + " " + w(20) + " greeting " + w(74) + " " + tok2,
		// The token alone on a line, and in an assignment.
		"whole": "key " + tok2 + "\nexport GITHUB_TOKEN=" + tok1,
		"other": "nothing secret here, greeting",
	}
	cases := []struct {
		q    string
		want string // idCounts
	}{
		{"greeting", "map[edges:1 other:1]"},
		{tok1, "map[]"},
		{tok2, "map[]"},
		{tok1[10:30], "map[]"},
		{strings.ToUpper(tok2[8:24]), "map[]"},
		// What redact keeps of a token stays findable.
		{"ghp_Zx9Q", "map[edges:1 whole:1]"},
	}
	for _, caps := range [][]string{{contract.CapRawSearch}, nil} {
		h := &fakeHarness{caps: caps, render: func(s string) string { return s }}
		src, _ := fakeSource(t, h, files)
		cache := t.TempDir()
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%v/%s", caps, tc.q), func(t *testing.T) {
				for pass := 0; pass < 2; pass++ { // cold, then from the cache
					r, err := Search(tc.q, Options{Sources: []Source{src}, CacheDir: cache})
					if err != nil {
						t.Fatal(err)
					}
					if got := fmt.Sprint(idCounts(t, r)); got != tc.want {
						t.Errorf("pass %d: %s, want %s", pass, got, tc.want)
					}
					// The answer, but the query: the caller's own text.
					r.Query = ""
					out, _ := json.Marshal(r)
					for _, tok := range []string{tok1, tok2} {
						if l := leak(string(out), tok); l != "" {
							t.Errorf("pass %d: the answer shows %q of %s: %s", pass, l, tok[:8], out)
						}
					}
				}
			})
		}
		ents, err := os.ReadDir(cache)
		if err != nil || len(ents) == 0 {
			t.Fatalf("no cache written: %v", err)
		}
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(cache, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, tok := range []string{tok1, tok2} {
				if l := leak(string(data), tok); l != "" {
					t.Errorf("cache file %s holds %q of %s", e.Name(), l, tok[:8])
				}
			}
		}
	}
}

// TestSearchDropsUnmaskedCacheFiles: a cache file of a build that kept
// snippets unmasked ("q-*.bin") is removed when a search writes the cache.
func TestSearchDropsUnmaskedCacheFiles(t *testing.T) {
	src, _ := fakeSource(t, &fakeHarness{render: func(s string) string { return s }}, map[string]string{"a": "greeting"})
	cache := t.TempDir()
	old := filepath.Join(cache, "q-0123456789abcdef01234567.bin")
	if err := os.WriteFile(old, []byte("greeting "+tok1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Search("greeting", Options{Sources: []Source{src}, CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the unmasked cache file is still there: %v", err)
	}
}

// TestSearchEmptyListsAreNotNull: an answer with no sessions marshals its
// lists as [] (notesoup search --json), never null.
func TestSearchEmptyListsAreNotNull(t *testing.T) {
	src, _ := fakeSource(t, &fakeHarness{caps: []string{contract.CapRawSearch}, render: func(s string) string { return s }}, map[string]string{"a": "text"})
	for _, srcs := range [][]Source{nil, {src}} {
		r, err := Search("absent words", Options{Sources: srcs})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(r)
		if strings.Contains(string(out), "null") || !strings.Contains(string(out), `"sessions":[]`) {
			t.Errorf("%d sources: %s", len(srcs), out)
		}
	}
}

// TestCacheSeesRewriteBehindTheTail: a file rewritten at the same size,
// with its modification time set back and its last 4 KiB unchanged, is
// searched again: in place (the change time moves) and replaced by a
// rename (another inode).
func TestCacheSeesRewriteBehindTheTail(t *testing.T) {
	tail := strings.Repeat("filler line\n", 600) // > filekey.TailBytes after the marker
	cases := []struct {
		name    string
		rewrite func(t *testing.T, path string, b []byte)
	}{
		{"in place", func(t *testing.T, path string, b []byte) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(b, 0); err != nil {
				t.Fatal(err)
			}
		}},
		{"renamed over", func(t *testing.T, path string, b []byte) {
			tmp := path + ".new"
			if err := os.WriteFile(tmp, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			content := "the zqxmarker line\n" + tail
			src, root := fakeSource(t, &fakeHarness{caps: []string{contract.CapRawSearch}, render: func(s string) string { return s }}, map[string]string{"a": content, "b": "unrelated"})
			path := filepath.Join(root, "a.txt")
			opts := Options{Sources: []Source{src}, CacheDir: t.TempDir()}
			for i := 0; i < 2; i++ {
				r, err := Search("zqxmarker", opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(idCounts(t, r)); got != "map[a:1]" {
					t.Fatalf("search %d: %s", i+1, got)
				}
				if i == 1 && r.Stats.Cached != 2 {
					t.Fatalf("warm search not from the cache: %+v", r.Stats)
				}
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			before := ctimeOf(t, path)
			changed := []byte(strings.Replace(content, "zqxmarker", "abcdefghi", 1))
			// The change time is kept at the clock's tick: rewrite until
			// it moves (one tick, a few ms; bounded generously).
			for try := 0; ; try++ {
				tc.rewrite(t, path, changed)
				if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
					t.Fatal(err)
				}
				if ctimeOf(t, path) != before || try == 10000 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if fi2, _ := os.Stat(path); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
				t.Fatal("the rewrite changed the size or the modification time")
			}
			r, err := Search("zqxmarker", opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(idCounts(t, r)); got != "map[]" {
				t.Errorf("after the rewrite: %s, want none (stats %+v)", got, r.Stats)
			}
		})
	}
}

// TestForkFollowsReappearingParent: a fork whose parent is missing depends
// on that parent all the same; when the parent's file appears (or comes
// back), the fork's cached answer is not served.
func TestForkFollowsReappearingParent(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, root string) // before the first search
	}{
		{"never listed", func(*testing.T, string) {}},
		{"removed, then back", func(t *testing.T, root string) {
			// Listed once without the marker, then gone.
			p := filepath.Join(root, "parent.txt")
			if err := os.WriteFile(p, []byte("plain words"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := inheritingFake{&fakeHarness{caps: []string{contract.CapRawSearch, contract.CapForks}, render: func(s string) string { return s }}}
			src, root := fakeSource(t, h, map[string]string{"child": "from parent\nchild words", "other": "unrelated"})
			opts := Options{Sources: []Source{src}, CacheDir: t.TempDir()}
			tc.setup(t, root)
			parent := filepath.Join(root, "parent.txt")
			if _, err := os.Stat(parent); err == nil {
				if r, err := Search("zqxmarker", opts); err != nil || len(r.Sessions) != 0 {
					t.Fatalf("with the plain parent: %v %v", r.Sessions, err)
				}
				os.Remove(parent)
			}
			for i := 0; i < 2; i++ {
				r, err := Search("zqxmarker", opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(idCounts(t, r)); got != "map[]" {
					t.Fatalf("parent missing, search %d: %s", i+1, got)
				}
				if i == 1 && r.Stats.Cached != r.Stats.Files {
					t.Errorf("a missing parent made the fork uncacheable: %+v", r.Stats)
				}
			}
			if err := os.WriteFile(parent, []byte("the zqxmarker line"), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := Search("zqxmarker", opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(idCounts(t, r)); got != "map[child:1 parent:1]" {
				t.Errorf("after the parent appeared: %s, want the fork too (stats %+v)", got, r.Stats)
			}
		})
	}
}

// TestSearchUpdatedIsLastRecordTime: a session's Updated is the newest
// event time its decoder emits (the last record's, as history sessions
// shows it), not the file's modification time, and sessions sort by it.
func TestSearchUpdatedIsLastRecordTime(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := &timedFake{fakeHarness: &fakeHarness{caps: []string{contract.CapRawSearch}, render: func(s string) string { return s }}, times: map[string]time.Time{
		"old": t0, "new": t0.Add(time.Hour),
	}}
	src, root := fakeSource(t, h, map[string]string{"old": "zqxmarker a\nmore", "new": "zqxmarker b"})
	// The file modification times say the opposite.
	now := time.Now()
	os.Chtimes(filepath.Join(root, "new.txt"), now.Add(-time.Hour), now.Add(-time.Hour))
	os.Chtimes(filepath.Join(root, "old.txt"), now, now)
	opts := Options{Sources: []Source{src}, CacheDir: t.TempDir()}
	for pass := 0; pass < 2; pass++ {
		r, err := Search("zqxmarker", opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range r.Sessions {
			got = append(got, s.Session.ID+"@"+s.Session.Updated.UTC().Format(time.RFC3339))
		}
		want := fmt.Sprint([]string{"new@" + t0.Add(time.Hour+time.Second).Format(time.RFC3339), "old@" + t0.Add(2*time.Second).Format(time.RFC3339)})
		if fmt.Sprint(got) != want {
			t.Errorf("pass %d: %v, want %s", pass, got, want)
		}
	}
}

// timedFake is fakeHarness whose events carry times: line i of session id
// at times[id] + i seconds.
type timedFake struct {
	*fakeHarness
	times map[string]time.Time
}

func (f *timedFake) Decode(ctx context.Context, req contract.DecodeRequest, emit contract.EmitFunc) (contract.Summary, error) {
	return f.fakeHarness.Decode(ctx, req, func(ev contract.Event) error {
		ev.Time = f.times[req.Session.ID].Add(time.Duration(ev.Seq) * time.Second)
		return emit(ev)
	})
}
