package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/notesoup/notesoup/contract"
)

// list runs ListSessions and collects its sessions by id.
func list(t *testing.T, f contract.SessionFilter) map[string]contract.Session {
	t.Helper()
	got := map[string]contract.Session{}
	err := Harness{}.ListSessions(context.Background(), f, func(s contract.Session) error {
		if _, dup := got[s.ID]; dup {
			t.Errorf("session %s listed twice", s.ID)
		}
		got[s.ID] = s
		return nil
	})
	if err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	return got
}

func ids(m map[string]contract.Session) []string {
	var out []string
	for id := range m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestListSessions(t *testing.T) {
	root := t.TempDir()
	mtime := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	filler := `{"role":"assistant","text":"` + strings.Repeat("z", 1000) + `","ts":"2026-03-01T00:00:00Z"}` + "\n"
	long := strings.Repeat("é", 200) // 400 bytes
	files := map[string]string{
		"a.jsonl": `{"role":"assistant","text":"hello","ts":"2026-01-02T10:00:00Z"}` + "\n" +
			`{"role":"user","text":"  fix\tthe\n\nbuild  ","ts":"2026-01-02T10:01:00Z"}` + "\n" +
			`{"role":"assistant","text":"done","ts":"2026-01-02T10:05:00Z"}` + "\n",
		"b.jsonl":    `{"role":"user","text":"no times"}` + "\n",
		"big.jsonl":  `{"role":"user","text":"first","ts":"2026-02-01T00:00:00Z"}` + "\n" + strings.Repeat(filler, (headBytes+tailBytes)/len(filler)+2) + `{"role":"user","text":"last","ts":"2026-04-01T00:00:00Z"}` + "\n",
		"long.jsonl": `{"role":"user","text":"` + long + `"}` + "\n",
		"torn.jsonl": `{"role":"user","text":"kept","ts":"2026-01-05T00:00:00Z"}` + "\n" + `{"role":"assistant","te`,
		// none of these is a session
		"notes.txt":      `{"role":"user","text":"x"}` + "\n",
		".hidden.jsonl":  `{"role":"user","text":"x"}` + "\n",
		"bad id.jsonl":   `{"role":"user","text":"x"}` + "\n",
		"sub/deep.jsonl": `{"role":"user","text":"x"}` + "\n",
	}
	for name, content := range files {
		write(t, filepath.Join(root, name), content)
		if err := os.Chtimes(filepath.Join(root, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "a.jsonl"), filepath.Join(root, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}

	got := list(t, contract.SessionFilter{Roots: []string{root, root}})
	if want := []string{"a", "b", "big", "long", "torn"}; !slices.Equal(ids(got), want) {
		t.Fatalf("listed %v, want %v", ids(got), want)
	}
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	tests := []struct {
		id               string
		title            string
		started, updated time.Time
	}{
		{"a", "fix the build", at("2026-01-02T10:00:00Z"), at("2026-01-02T10:05:00Z")},
		{"b", "no times", mtime, mtime},
		{"big", "first", at("2026-02-01T00:00:00Z"), at("2026-04-01T00:00:00Z")},
		{"long", strings.Repeat("é", maxTitleBytes/2), mtime, mtime},
		{"torn", "kept", at("2026-01-05T00:00:00Z"), at("2026-01-05T00:00:00Z")},
	}
	for _, tc := range tests {
		s := got[tc.id]
		fi, err := os.Stat(s.Path)
		if err != nil {
			t.Fatalf("%s: %v", tc.id, err)
		}
		if s.Harness != Name || s.Path != filepath.Join(root, tc.id+ext) || s.Size != fi.Size() || s.Cwd != "" {
			t.Errorf("%s: %+v; want harness %s, path under %s, size %d, no cwd", tc.id, s, Name, root, fi.Size())
		}
		if s.Title != tc.title {
			t.Errorf("%s: title %q, want %q", tc.id, s.Title, tc.title)
		}
		if len(s.Title) > maxTitleBytes || !utf8.ValidString(s.Title) {
			t.Errorf("%s: title of %d bytes (valid UTF-8: %v), want at most %d", tc.id, len(s.Title), utf8.ValidString(s.Title), maxTitleBytes)
		}
		if !s.Started.Equal(tc.started) || !s.Updated.Equal(tc.updated) {
			t.Errorf("%s: started %v updated %v, want %v and %v", tc.id, s.Started, s.Updated, tc.started, tc.updated)
		}
	}

	t.Run("files only reads nothing", func(t *testing.T) {
		fo := list(t, contract.SessionFilter{Roots: []string{root}, FilesOnly: true})
		if !slices.Equal(ids(fo), ids(got)) {
			t.Fatalf("files-only listed %v, want %v", ids(fo), ids(got))
		}
		for id, s := range fo {
			if want := (contract.Session{Harness: Name, ID: id, Path: got[id].Path}); s != want {
				t.Errorf("files-only %s: %+v, want %+v", id, s, want)
			}
		}
	})
	t.Run("id prefix", func(t *testing.T) {
		if p := list(t, contract.SessionFilter{Roots: []string{root}, IDPrefix: "b"}); !slices.Equal(ids(p), []string{"b", "big"}) {
			t.Errorf("prefix b listed %v, want [b big]", ids(p))
		}
	})
	t.Run("a missing root lists nothing", func(t *testing.T) {
		if m := list(t, contract.SessionFilter{Roots: []string{filepath.Join(root, "absent")}}); len(m) != 0 {
			t.Errorf("listed %v", ids(m))
		}
	})
	t.Run("the callback's error stops the listing", func(t *testing.T) {
		stop := errors.New("enough")
		n := 0
		err := Harness{}.ListSessions(context.Background(), contract.SessionFilter{Roots: []string{root}}, func(contract.Session) error { n++; return stop })
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("%d calls, err %v; want 1 and the callback's error", n, err)
		}
	})
}

func TestDefaultRootsFollowTheHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv(HomeEnv, home)
	write(t, filepath.Join(home, sessionsDir, "s1.jsonl"), `{"role":"user","text":"hi"}`+"\n")
	got := list(t, contract.SessionFilter{})
	if s, ok := got["s1"]; !ok || len(got) != 1 || s.Path != filepath.Join(home, sessionsDir, "s1.jsonl") {
		t.Fatalf("default roots listed %v, want s1 under %s", got, home)
	}

	t.Setenv(HomeEnv, "")
	t.Setenv("HOME", home)
	roots, err := DefaultRoots()
	if want := filepath.Join(home, DefaultHome, sessionsDir); err != nil || len(roots) != 1 || roots[0] != want {
		t.Errorf("without %s: roots %v, %v; want [%s]", HomeEnv, roots, err, want)
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"plain", 120, "plain"},
		{"  a\n\tb \x1b[31m c  ", 120, "a b [31m c"},
		{"abcdef", 3, "abc"},
		{"ab cd", 3, "ab"},          // the space and the next word do not fit
		{"éé", 3, "é"},              // never half a rune
		{"a\xffb", 120, "a\uFFFDb"}, // invalid bytes become U+FFFD
	}
	for _, tc := range tests {
		if got := oneLine(tc.in, tc.limit); got != tc.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}
