package selfcontained

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// outside are the spellings of the tree beside the repository that no
// tracked file may contain. They are written in two pieces, and the cases
// below write them as {sib} and {abs}, so that not even this file holds
// them and a plain grep over the tree finds nothing.
var outside = []string{".." + "/shared", "/work" + "/shared"}

// spell expands {sib} and {abs} in a case to the spellings of outside.
var spell = strings.NewReplacer("{sib}", outside[0], "{abs}", outside[1]).Replace

// self is this file, the one place the spellings must appear; its path is
// relative to the repository root, slash-separated as git lists it.
const self = "internal/selfcontained/selfcontained_test.go"

// A hit is one occurrence of an outside path.
type hit struct {
	file string // slash-separated, relative to the root
	line int    // 1-based
	what string // which of outside
}

func (h hit) String() string { return fmt.Sprintf("%s:%d: %s", h.file, h.line, h.what) }

func TestNoTrackedFileNamesATreeOutsideTheRepository(t *testing.T) {
	root := repoRoot(t)
	files, how, err := trackedFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	// A listing that came back empty or partial would pass vacuously.
	if !slices.Contains(files, "go.mod") {
		t.Fatalf("%s listed %d files, go.mod not among them; the listing is wrong", how, len(files))
	}
	// Were this file renamed, self would no longer exempt it.
	if !slices.Contains(files, self) {
		t.Fatalf("%s does not list %s: if this test moved, set self to its new path (a new file must be added to git first)", how, self)
	}
	t.Logf("%d files, from %s", len(files), how)
	hits, err := scan(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		t.Errorf("%s: names a path outside the repository; the project must build, test and read the same from a plain clone: "+
			"bring what it needs into the repository and name it by its path here", h)
	}
}

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // hits, as hit.String
	}{
		{
			name:  "a relative path to the sibling tree",
			files: map[string]string{"docs/a.md": "intro\nsee {sib}/seeds/x.txt\n"},
			want:  []string{"docs/a.md:2: {sib}"},
		},
		{
			name:  "an absolute path, twice on one line and once more",
			files: map[string]string{"build.mk": "cd {abs}/tools && ls {abs}\n\n{abs}\n"},
			want:  []string{"build.mk:1: {abs}", "build.mk:1: {abs}", "build.mk:3: {abs}"},
		},
		{
			name:  "both spellings in two files",
			files: map[string]string{"a.go": "// {sib}", "b/c.txt": "x {abs}"},
			want:  []string{"a.go:1: {sib}", "b/c.txt:1: {abs}"},
		},
		{
			name:  "paths inside the repository",
			files: map[string]string{"README.md": "shared/notes, ./shared/history, sharedstate"},
		},
		{
			name:  "this test itself",
			files: map[string]string{self: "{sib} {abs}"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var files []string
			for name, body := range tc.files {
				writeFile(t, root, name, spell(body))
				files = append(files, name)
			}
			// A listed file that is gone (deleted, not yet committed) is skipped.
			files = append(files, "deleted.md")
			slices.Sort(files)
			hits, err := scan(root, files)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.String())
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, spell(w))
			}
			if !slices.Equal(got, want) {
				t.Errorf("scan found %q, want %q", got, want)
			}
		})
	}
}

// TestWalk checks the listing used where git is not there: every file but
// git's own and what the build writes.
func TestWalk(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{
		"go.mod", "docs/a.md", "plugins/x/.claude-plugin/plugin.json", ".gitignore",
		".git/config", "node_modules/p/index.js", "bin/notesoup", "plugins/x/build/contract/index.d.ts",
		"plugins/x/.claude-plugin/types/claude-code/index.d.ts", ".tools/npm/x",
	} {
		writeFile(t, root, name, "")
	}
	got, err := walk(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "docs/a.md", "go.mod", "plugins/x/.claude-plugin/plugin.json"}
	if !slices.Equal(got, want) {
		t.Errorf("walk listed %q, want %q", got, want)
	}
}

// repoRoot is the directory holding the main module's go.mod, found upward
// from the package directory the test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module github.com/notesoup/notesoup\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of github.com/notesoup/notesoup above the test's directory")
		}
		dir = parent
	}
}

// trackedFiles lists the files of the repository at root, slash-separated
// and relative to it: git's list when git is there and root is a checkout,
// else every file found by walk (an unpacked archive has no .git). It says
// which it used.
func trackedFiles(root string) (files []string, how string, err error) {
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "-C", root, "ls-files", "-z")
		if out, err := cmd.Output(); err == nil {
			for _, f := range strings.Split(string(out), "\x00") {
				if f != "" {
					files = append(files, f)
				}
			}
			return files, "git ls-files", nil
		}
	}
	files, err = walk(root)
	return files, "a walk of " + root, err
}

// skipDirs are directories a walk leaves out: git's own, the pinned CLIs,
// caches, and what the build writes (none is tracked; see .gitignore).
var skipDirs = map[string]bool{
	".git": true, ".tools": true, ".cache": true, "node_modules": true,
	"bin": true, "dist": true, "build": true,
}

// walk lists the regular files under root, slash-separated and relative
// to it, sorted, leaving out skipDirs and the extracted Claude Code contract
// (.claude-plugin/types).
func walk(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] || (d.Name() == "types" && filepath.Base(filepath.Dir(path)) == ".claude-plugin") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// scan reads each file (relative to root) and returns every occurrence of
// an outside path, in the order of files, except in this test's own file.
// Files listed but gone, and symbolic links, are skipped.
func scan(root string, files []string) ([]hit, error) {
	var hits []hit
	for _, f := range files {
		if f == self {
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(f))
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var inFile []hit
		for _, what := range outside {
			for off := 0; ; {
				i := bytes.Index(data[off:], []byte(what))
				if i < 0 {
					break
				}
				off += i
				inFile = append(inFile, hit{file: f, line: 1 + bytes.Count(data[:off], []byte("\n")), what: what})
				off += len(what)
			}
		}
		// By line, whichever spelling it is.
		slices.SortStableFunc(inFile, func(a, b hit) int { return a.line - b.line })
		hits = append(hits, inFile...)
	}
	return hits, nil
}

func writeFile(t *testing.T, root, name, body string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
