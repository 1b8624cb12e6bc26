package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

func TestDescriptionCache(t *testing.T) {
	root := t.TempDir()
	cachePath := filepath.Join(t.TempDir(), "sessions", "h.json")
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
		{"a same-size rewrite with its old mtime put back is read again", func() {
			fi, _ := os.Stat(b)
			time.Sleep(20 * time.Millisecond) // past the change-time clock's tick
			write("b.jsonl", "SECOND")
			os.Chtimes(b, fi.ModTime(), fi.ModTime())
		}, []string{a, b, x}, 1, map[string]string{"a.jsonl": "first+more", "b.jsonl": "SECOND"}},
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
}

func TestDescriptionCacheIgnoresForeignFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(p, []byte("live"), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp, ok := stampOf(p)
	if !ok {
		t.Skip("no file stamps on this system: the cache is never used")
	}
	stale := `{"format":%d,"version":%q,"files":{%q:{"stamp":` + `{"size":4,"mtime":` + itoa(stamp.MTime) + `,"ctime":` + itoa(stamp.CTime) + `,"ino":` + itoa(int64(stamp.Inode)) + `},"ok":true,"session":{"harness":"","id":"a.jsonl","path":"","title":"stale"}}}}`
	for _, tc := range []struct {
		name    string
		content string
		want    string
	}{
		{"garbage", "not json", "live"},
		{"another format", sprintf(stale, descriptionFormat+1, versionString(), p), "live"},
		{"another version", sprintf(stale, descriptionFormat, "0.0.0-other", p), "live"},
		{"this format and version", sprintf(stale, descriptionFormat, versionString(), p), "stale"}, // the test can fail
	} {
		cachePath := filepath.Join(t.TempDir(), "c.json")
		if err := os.WriteFile(cachePath, []byte(tc.content), 0o600); err != nil {
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

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }

func versionString() string { return version.Version }
