package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// walkFilesRef is the filepath.WalkDir walker the direct one replaced:
// the definition of which files a walk lists.
func walkFilesRef(roots []string, maxDepth int, harness string, want func(string) bool) []history.Session {
	var out []history.Session
	seen := map[string]bool{}
	for _, root := range roots {
		root = filepath.Clean(root)
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == root && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				if d != nil && d.IsDir() && path != root {
					return fs.SkipDir
				}
				return err
			}
			if d.IsDir() {
				if maxDepth >= 0 && path != root && strings.Count(strings.TrimPrefix(path, root), string(filepath.Separator)) >= maxDepth {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !want(d.Name()) || seen[path] {
				return nil
			}
			seen[path] = true
			out = append(out, history.Session{Harness: harness, ID: idFromName(d.Name()), Path: path})
			return nil
		})
	}
	return out
}

// walkFixture lays out session files of the three harnesses with the
// decoys a walk must skip (too deep, wrong names, subagent folders,
// symbolic links) and returns its root.
func walkFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	mk := func(rel string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{
		"pi/--a--/2026_11111111-1111-1111-1111-111111111111.jsonl",
		"pi/--a--/notes.txt",
		"pi/flat_22222222-2222-2222-2222-222222222222.jsonl",
		"pi/--a--/deep/too-deep.jsonl",
		"pi/--b--/z.jsonl", "pi/--b--/a.jsonl", "pi/--b--/M.jsonl",
		"codex/2026/07/03/rollout-2026-07-03T09-58-00-a92e243b-45d6-45a6-bc2d-79de368ba416.jsonl",
		"codex/2026/07/03/other.jsonl",
		"codex/archived_sessions/rollout-x-33333333-3333-3333-3333-333333333333.jsonl",
		"codex/a/b/c/d/e/rollout-deep.jsonl",
		"claude/-home-p/44444444-4444-4444-4444-444444444444.jsonl",
		"claude/-home-p/subagents/x.jsonl",
		"claude/-home-q/b.jsonl", "claude/-home-q/a.jsonl", "claude/loose.jsonl",
	} {
		mk(rel)
	}
	// Symbolic links are not followed or listed, files or directories.
	os.Symlink(filepath.Join(root, "pi/--b--/a.jsonl"), filepath.Join(root, "pi/--b--/link.jsonl"))
	os.Symlink(filepath.Join(root, "codex/2026"), filepath.Join(root, "codex/linked-dir"))
	os.Symlink(filepath.Join(root, "claude/-home-q"), filepath.Join(root, "claude/-home-link"))
	return root
}

func TestWalkersListWhatWalkDirLists(t *testing.T) {
	root := walkFixture(t)
	pi, codex := []string{filepath.Join(root, "pi")}, []string{filepath.Join(root, "codex")}
	piWant := func(n string) bool { return strings.HasSuffix(n, ".jsonl") }
	codexWant := func(n string) bool { return strings.HasPrefix(n, "rollout-") && strings.HasSuffix(n, ".jsonl") }
	cases := []struct {
		name  string
		roots []string
		depth int
		want  func(string) bool
	}{
		{"pi", pi, 2, piWant},
		{"codex", codex, -1, codexWant},
		{"depth 1", pi, 1, piWant},
		{"overlapping roots", []string{filepath.Join(root, "pi"), filepath.Join(root, "pi", "--b--"), filepath.Join(root, "pi") + "/"}, 2, piWant},
		{"missing root", []string{filepath.Join(root, "nope"), filepath.Join(root, "pi")}, 2, piWant},
		{"file root", []string{filepath.Join(root, "pi/--b--/a.jsonl")}, 2, piWant},
		{"symlink root", []string{filepath.Join(root, "codex/linked-dir")}, -1, codexWant},
	}
	for _, c := range cases {
		got, err := walkFiles(c.roots, c.depth, "h", c.want)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if want := walkFilesRef(c.roots, c.depth, "h", c.want); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got  %v\n want %v", c.name, got, want)
		}
	}
	got, err := ClaudeFiles([]string{filepath.Join(root, "claude"), filepath.Join(root, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range got {
		paths = append(paths, strings.TrimPrefix(s.Path, root+"/")+"="+s.ID)
	}
	if want := "[claude/-home-p/44444444-4444-4444-4444-444444444444.jsonl=44444444-4444-4444-4444-444444444444 claude/-home-q/a.jsonl=a claude/-home-q/b.jsonl=b]"; fmt.Sprint(paths) != want {
		t.Errorf("ClaudeFiles:\n got  %v\n want %v", paths, want)
	}
}

// TestReadDirMatchesOS lists a directory larger than one read of entries
// and checks names and kinds against os.ReadDir.
func TestReadDirMatchesOS(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 700; i++ {
		name := fmt.Sprintf("%04d-%s.jsonl", i, strings.Repeat("n", i%90))
		if i%7 == 0 {
			if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("0001-n.jsonl", filepath.Join(dir, "zz-link"))
	got, err := readDir(dir, dirPrefix(dir))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("readDir listed %d entries, os.ReadDir %d", len(got), len(want))
	}
	for i := range want {
		if got[i].name != want[i].Name() || got[i].kind != kindOf(want[i].Type()) || got[i].path != filepath.Join(dir, want[i].Name()) {
			t.Fatalf("entry %d: %q kind %d, want %q kind %d", i, got[i].name, got[i].kind, want[i].Name(), kindOf(want[i].Type()))
		}
	}
	if _, err := readDir(filepath.Join(dir, "missing"), dir+"/missing/"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v, want not-exist", err)
	}
}
