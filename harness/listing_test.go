package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/filekey/filekeytest"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// countingDescriber describes a file as a session titled with its content,
// counting reads; files starting with "x" are not sessions.
func countingDescriber(n *atomic.Int32) Describer {
	return func(path string) (history.Session, bool, error) {
		n.Add(1)
		b, err := os.ReadFile(path)
		if err != nil {
			return history.Session{}, false, err
		}
		if strings.HasPrefix(string(b), "x") {
			return history.Session{}, false, nil
		}
		fi, _ := os.Stat(path)
		return history.Session{ID: filepath.Base(path), Path: path, Title: string(b), Updated: fi.ModTime()}, true, nil
	}
}

// TestDescriptionCache: a file appended between two listings shows its new
// state, and so does a rewrite in place at the same size with its old
// modification time put back, whether the cached keys are racy (proven by
// their tail hash) or settled (proven by a stat alone).
func TestDescriptionCache(t *testing.T) {
	filekeytest.EachProof(t, testDescriptionCache)
}

func testDescriptionCache(t *testing.T, settled bool) {
	root := t.TempDir()
	cachePath := filepath.Join(t.TempDir(), "sessions", "h.bin")
	write := func(name, content string) string {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a.jsonl", "first"), write("b.jsonl", "second")
	x := write("x.jsonl", "x not a session")
	var reads atomic.Int32
	describe := countingDescriber(&reads)
	// list opens the cache afresh, as a new process would, and lists.
	list := func(files ...string) map[string]string {
		t.Helper()
		c := NewDescriptionCache(cachePath)
		ss, err := Describe(files, describe, c)
		if err != nil {
			t.Fatal(err)
		}
		c.Forget([]string{root}, files)
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		titles := map[string]string{}
		for _, s := range ss {
			titles[s.ID] = s.Title
		}
		return titles
	}
	steps := []struct {
		name      string
		change    func()
		files     []string
		wantReads int32
		want      map[string]string
	}{
		{"first listing reads every file", func() {}, []string{a, b, x}, 3, map[string]string{"a.jsonl": "first", "b.jsonl": "second"}},
		{"unchanged files are not read again", func() {}, []string{a, b, x}, 0, map[string]string{"a.jsonl": "first", "b.jsonl": "second"}},
		{"an appended file is read again", func() {
			f, _ := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("+more")
			f.Close()
		}, []string{a, b, x}, 1, map[string]string{"a.jsonl": "first+more", "b.jsonl": "second"}},
		{"a same-size rewrite with its old mtime put back is read again", func() { filekeytest.RewriteInPlace(t, b, []byte("SECOND"), settled) },
			[]string{a, b, x}, 1, map[string]string{"a.jsonl": "first+more", "b.jsonl": "SECOND"}},
		{"a deleted file is gone", func() { os.Remove(x) }, []string{a, b}, 0, map[string]string{"a.jsonl": "first+more", "b.jsonl": "SECOND"}},
	}
	for _, st := range steps {
		st.change()
		reads.Store(0)
		got := list(st.files...)
		if reads.Load() != st.wantReads {
			t.Errorf("%s: %d files read, want %d", st.name, reads.Load(), st.wantReads)
		}
		if len(got) != len(st.want) {
			t.Fatalf("%s: listed %v, want %v", st.name, got, st.want)
		}
		for id, title := range st.want {
			if got[id] != title {
				t.Errorf("%s: %s titled %q, want %q", st.name, id, got[id], title)
			}
		}
	}
	c := NewDescriptionCache(cachePath)
	c.loaded()
	if _, ok := c.files[x]; ok {
		t.Errorf("the deleted file's description was kept")
	}
	for p, d := range c.files {
		if d.Racy == settled && filekeytest.CTime(t, p) != 0 {
			t.Errorf("%s: racy %v, want %v", p, d.Racy, !settled)
		}
	}
}

// TestDescriptionCacheSettles: descriptions cached right after their files
// changed are racy; a listing that proves them by their tails once they no
// longer are marks them settled, and serves the same descriptions.
func TestDescriptionCacheSettles(t *testing.T) {
	root := t.TempDir()
	cachePath := filepath.Join(t.TempDir(), "h.bin")
	p := filepath.Join(root, "a.jsonl")
	if err := os.WriteFile(p, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if filekeytest.CTime(t, p) == 0 {
		t.Skip("no change time on this system: every key stays racy")
	}
	var reads atomic.Int32
	racy := func(window time.Duration) bool {
		t.Helper()
		filekeytest.WithRacyWindow(t, window)
		c := NewDescriptionCache(cachePath)
		ss, err := Describe([]string{p}, countingDescriber(&reads), c)
		if err != nil || len(ss) != 1 || ss[0].Title != "first" {
			t.Fatalf("listed %+v, %v", ss, err)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		c = NewDescriptionCache(cachePath)
		c.loaded()
		return c.files[p].Racy
	}
	if !racy(time.Hour) {
		t.Errorf("settled right after it was written")
	}
	if racy(0) {
		t.Errorf("still racy after a proof past the window")
	}
	if reads.Load() != 1 {
		t.Errorf("%d reads, want 1: settling must not describe again", reads.Load())
	}
}

// TestDescriptionCacheIgnoresDamagedFiles: a cache file that is torn,
// damaged, of another format or version, or not this cache's at all is an
// empty cache; an intact one is served (so the test can fail).
func TestDescriptionCacheIgnoresDamagedFiles(t *testing.T) {
	filekeytest.WithRacyWindow(t, time.Hour) // the entry below is racy; so is every key
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(p, []byte("live"), 0o644); err != nil {
		t.Fatal(err)
	}
	key, err := filekey.Of(p)
	if err != nil {
		t.Fatal(err)
	}
	stale := encodeDescriptions(map[string]*cachedDescription{
		p: {Key: key, Racy: true, OK: true, Session: history.Session{ID: "a.jsonl", Path: p, Title: "stale"}},
	})
	flip := func(i int) []byte {
		b := bytes.Clone(stale)
		b[i] ^= 0x20
		return b
	}
	otherVersion := func(v string) []byte {
		old := version.Version
		version.Version = v
		defer func() { version.Version = old }()
		return encodeDescriptions(map[string]*cachedDescription{p: {Key: key, Racy: true, OK: true, Session: history.Session{Title: "stale"}}})
	}
	jsonCache, _ := json.Marshal(map[string]any{"format": 2, "version": version.Version, "files": map[string]any{p: map[string]any{"ok": true, "session": map[string]any{"title": "stale"}}}})
	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"empty", nil, "live"},
		{"garbage", []byte("not a cache"), "live"},
		{"the JSON cache of format 2", jsonCache, "live"},
		{"torn", stale[:len(stale)-1], "live"},
		{"torn in the middle", stale[:len(stale)/2], "live"},
		{"a byte damaged", flip(len(stale) / 2), "live"},
		{"the checksum damaged", flip(len(stale) - 1), "live"},
		{"another format", append([]byte(descriptionMagic), flip(len(descriptionMagic))[len(descriptionMagic):]...), "live"},
		{"another version", otherVersion("0.0.0-other"), "live"},
		{"intact, this format and version", stale, "stale"}, // the test can fail
	} {
		cachePath := filepath.Join(t.TempDir(), "c.bin")
		if err := os.WriteFile(cachePath, tc.content, 0o600); err != nil {
			t.Fatal(err)
		}
		var reads atomic.Int32
		ss, err := Describe([]string{p}, countingDescriber(&reads), NewDescriptionCache(cachePath))
		if err != nil || len(ss) != 1 || ss[0].Title != tc.want {
			t.Errorf("%s: listed %+v, %v; want title %q", tc.name, ss, err, tc.want)
		}
	}
	// A nil cache describes every time.
	var reads atomic.Int32
	for i := 0; i < 2; i++ {
		if _, err := Describe([]string{p}, countingDescriber(&reads), nil); err != nil {
			t.Fatal(err)
		}
	}
	if reads.Load() != 2 {
		t.Errorf("nil cache: %d reads, want 2", reads.Load())
	}
}

// TestDescriptionCodecRoundTrip: every field of a description comes back
// as it went in, times with their zone offsets (what JSON output shows).
func TestDescriptionCodecRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 3, 13, 37, 46, 513000000, time.UTC)
	in := map[string]*cachedDescription{
		"/r/utc.jsonl": {Key: filekey.Key{Size: 1 << 40, MTime: at.UnixNano(), CTime: at.UnixNano() + 1, Ino: 1<<64 - 1, Tail: 1<<64 - 2}, OK: true,
			Session: history.Session{Harness: "claude", ID: "u", Path: "/r/utc.jsonl", Cwd: "/w", Title: "ünïcode title", Started: at, Updated: at.Add(time.Hour), Size: 1 << 40}},
		"/r/zone.jsonl": {Key: filekey.Key{Size: 0, MTime: -5}, Racy: true, OK: true,
			Session: history.Session{Harness: "pi", ID: "z", Path: "/elsewhere/zone.jsonl", Started: at.In(time.FixedZone("", 5*3600+30*60)), Updated: at.Local()}},
		"/r/not.jsonl": {Key: filekey.Key{Size: 7}, Session: history.Session{}},
	}
	out, err := decodeDescriptions(encodeDescriptions(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("%d entries, want %d", len(out), len(in))
	}
	for p, want := range in {
		got := out[p]
		if got == nil {
			t.Errorf("%s: missing", p)
			continue
		}
		if got.Key != want.Key || got.Racy != want.Racy || got.OK != want.OK {
			t.Errorf("%s: %+v, want %+v", p, got, want)
		}
		gj, _ := json.Marshal(got.Session)
		wj, _ := json.Marshal(want.Session)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: session %s, want %s", p, gj, wj)
		}
		if !got.Session.Started.Equal(want.Session.Started) || got.Session.Updated.Format(time.RFC3339Nano) != want.Session.Updated.Format(time.RFC3339Nano) {
			t.Errorf("%s: times %v %v, want %v %v", p, got.Session.Started, got.Session.Updated, want.Session.Started, want.Session.Updated)
		}
	}
}
