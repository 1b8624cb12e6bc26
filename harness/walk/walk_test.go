package walk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

// walkDirRef is the filepath.WalkDir walk the direct one replaced: the
// definition of which files a walk that is not Strict lists.
func walkDirRef(roots []string, spec Spec) []contract.Session {
	var out []contract.Session
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
			depth := strings.Count(strings.TrimPrefix(path, root), string(filepath.Separator))
			if d.IsDir() {
				if spec.MaxDepth >= 0 && depth > spec.MaxDepth {
					return fs.SkipDir
				}
				return nil
			}
			if depth > 0 {
				depth-- // a file's depth counts the directories above it
			}
			if !d.Type().IsRegular() || depth < spec.MinDepth || !spec.Keep(d.Name()) || seen[path] {
				return nil
			}
			seen[path] = true
			out = append(out, contract.Session{Harness: spec.Harness, ID: spec.ID(d.Name()), Path: path})
			return nil
		})
	}
	return out
}

// fixture lays out session files of three layouts with the decoys a walk
// must skip (too deep, wrong names, nested folders, symbolic links) and
// returns its root.
func fixture(t *testing.T) string {
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
		"two/--a--/2026_11111111-1111-1111-1111-111111111111.jsonl",
		"two/--a--/notes.txt",
		"two/flat_22222222-2222-2222-2222-222222222222.jsonl",
		"two/--a--/deep/too-deep.jsonl",
		"two/--b--/z.jsonl", "two/--b--/a.jsonl", "two/--b--/M.jsonl",
		"any/2026/07/03/rollout-2026-07-03T09-58-00-a92e243b-45d6-45a6-bc2d-79de368ba416.jsonl",
		"any/2026/07/03/other.jsonl",
		"any/archived_sessions/rollout-x-33333333-3333-3333-3333-333333333333.jsonl",
		"any/a/b/c/d/e/rollout-deep.jsonl",
		"projects/-home-p/44444444-4444-4444-4444-444444444444.jsonl",
		"projects/-home-p/subagents/x.jsonl",
		"projects/-home-q/b.jsonl", "projects/-home-q/a.jsonl", "projects/loose.jsonl",
	} {
		mk(rel)
	}
	// Symbolic links are not followed or listed, files or directories.
	os.Symlink(filepath.Join(root, "two/--b--/a.jsonl"), filepath.Join(root, "two/--b--/link.jsonl"))
	os.Symlink(filepath.Join(root, "any/2026"), filepath.Join(root, "any/linked-dir"))
	os.Symlink(filepath.Join(root, "projects/-home-q"), filepath.Join(root, "projects/-home-link"))
	// A root that is itself a link (followed only by a Strict walk).
	os.Symlink(filepath.Join(root, "projects"), filepath.Join(root, "projects-link"))
	return root
}

func jsonl(n string) bool { return strings.HasSuffix(n, ".jsonl") }

func rollout(n string) bool { return strings.HasPrefix(n, "rollout-") && jsonl(n) }

func uuidID(n string) string { return TrailingID(n, ".jsonl", 36) }

func TestFilesMatchWalkDir(t *testing.T) {
	root := fixture(t)
	two, any := []string{filepath.Join(root, "two")}, []string{filepath.Join(root, "any")}
	twoSpec := Spec{Harness: "h", MaxDepth: 1, Keep: jsonl, ID: uuidID}
	anySpec := Spec{Harness: "h", MaxDepth: -1, Keep: rollout, ID: uuidID}
	cases := []struct {
		name  string
		roots []string
		spec  Spec
		want  int // files listed, so the comparison cannot pass empty
	}{
		{"two levels", two, twoSpec, 5},
		{"any depth", any, anySpec, 3},
		{"depth 0", two, Spec{Harness: "h", MaxDepth: 0, Keep: jsonl, ID: uuidID}, 1},
		{"only below the root", two, Spec{Harness: "h", MinDepth: 1, MaxDepth: 1, Keep: jsonl, ID: uuidID}, 4},
		{"overlapping roots", []string{filepath.Join(root, "two"), filepath.Join(root, "two", "--b--"), filepath.Join(root, "two") + "/"}, twoSpec, 5},
		{"missing root", []string{filepath.Join(root, "nope"), filepath.Join(root, "two")}, twoSpec, 5},
		{"file root", []string{filepath.Join(root, "two/--b--/a.jsonl")}, twoSpec, 1},
		{"symbolic link root", []string{filepath.Join(root, "any/linked-dir")}, anySpec, 0},
	}
	for _, c := range cases {
		got, err := Files(c.roots, c.spec)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if want := walkDirRef(c.roots, c.spec); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got  %v\n want %v", c.name, got, want)
		}
		if len(got) != c.want {
			t.Errorf("%s: %d files, want %d: %v", c.name, len(got), c.want, got)
		}
	}
}

// TestStrictFiles walks a folder of project folders as Claude Code keeps
// them: files one level down only, the root read through a link, a root
// that is no directory an error.
func TestStrictFiles(t *testing.T) {
	root := fixture(t)
	spec := Spec{Harness: "h", Strict: true, MinDepth: 1, MaxDepth: 1, Keep: jsonl,
		ID: func(n string) string { return strings.TrimSuffix(n, ".jsonl") }}
	want := "[projects/-home-p/44444444-4444-4444-4444-444444444444.jsonl=44444444-4444-4444-4444-444444444444 projects/-home-q/a.jsonl=a projects/-home-q/b.jsonl=b]"
	rel := func(ss []contract.Session, top string) string {
		var out []string
		for _, s := range ss {
			if s.Harness != "h" {
				t.Errorf("%s: harness %q", s.Path, s.Harness)
			}
			out = append(out, "projects/"+strings.TrimPrefix(s.Path, filepath.Join(root, top)+"/")+"="+s.ID)
		}
		return fmt.Sprint(out)
	}
	for _, top := range []string{"projects", "projects-link"} {
		got, err := Files([]string{filepath.Join(root, top), filepath.Join(root, "missing")}, spec)
		if err != nil {
			t.Errorf("%s: %v", top, err)
		}
		if r := rel(got, top); r != want {
			t.Errorf("%s:\n got  %v\n want %v", top, r, want)
		}
	}
	// A root that is a file is an error; the other roots are still listed.
	got, err := Files([]string{filepath.Join(root, "projects/loose.jsonl"), filepath.Join(root, "projects")}, spec)
	if err == nil || !strings.Contains(err.Error(), "loose.jsonl") {
		t.Errorf("a file root: error %v, want one naming it", err)
	}
	if r := rel(got, "projects"); r != want {
		t.Errorf("beside a file root:\n got  %v\n want %v", r, want)
	}
}

func TestTrailingID(t *testing.T) {
	tests := []struct{ name, want string }{
		{"rollout-2026-07-03T09-58-00-a92e243b-45d6-45a6-bc2d-79de368ba416.jsonl", "a92e243b-45d6-45a6-bc2d-79de368ba416"},
		{"2026_11111111-1111-1111-1111-111111111111.jsonl", "11111111-1111-1111-1111-111111111111"},
		{"short.jsonl", "short"},
		{"11111111-1111-1111-1111-111111111111.jsonl", "11111111-1111-1111-1111-111111111111"},
	}
	for _, tc := range tests {
		if got := TrailingID(tc.name, ".jsonl", 36); got != tc.want {
			t.Errorf("TrailingID(%q) = %q, want %q", tc.name, got, tc.want)
		}
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
