package dream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/dream/headless"
	"github.com/notesoup/notesoup/shared/notes"
)

// The test binary doubles as the harness: with fakeEnv set it applies the
// operations it holds to the notes folders, as a model's tool calls would,
// prints a report and exits.
const (
	fakeEnv    = "DREAM_TEST_FAKE_HARNESS"
	fakeBinEnv = "DREAM_TEST_FAKE_BIN"
	fakeReport = "FAKE-REPORT: merged 2 notes"
)

// op is one change the fake harness makes.
type op struct {
	Op   string `json:"op"` // write, delete, mkdir, link, chmod, ready
	Path string `json:"path"`
	Data string `json:"data,omitempty"`
}

func TestMain(m *testing.M) {
	if ops := os.Getenv(fakeEnv); ops != "" {
		os.Exit(fakeHarness(ops))
	}
	os.Exit(m.Run())
}

func fakeHarness(raw string) int {
	var ops []op
	if err := json.Unmarshal([]byte(raw), &ops); err != nil {
		fmt.Fprintln(os.Stderr, "fake harness:", err)
		return 2
	}
	fmt.Println("progress line one")
	for _, o := range ops {
		var err error
		switch o.Op {
		case "write":
			if err = os.MkdirAll(filepath.Dir(o.Path), 0o700); err == nil {
				err = os.WriteFile(o.Path, []byte(o.Data), 0o600)
			}
		case "delete":
			err = os.Remove(o.Path)
		case "mkdir":
			err = os.MkdirAll(o.Path, 0o700)
		case "link":
			err = os.Symlink(o.Data, o.Path)
		case "chmod":
			err = os.Chmod(o.Path, 0o644)
		case "ready": // say so, then wait to be stopped
			os.WriteFile(o.Path, nil, 0o600)
			time.Sleep(10 * time.Minute)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake harness:", err)
			return 1
		}
	}
	fmt.Println(fakeReport)
	return 0
}

// fake is the headless.Harness the tests run: this test binary.
var fake = headless.Harness{
	Name: "fake", Binary: "fake-harness-not-on-path", BinEnv: fakeBinEnv, Tools: "notes_list",
	Command: func(ctx context.Context, r headless.Request) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, r.Bin, "-test.run=^$", r.Prompt)
		cmd.Dir = r.Dir
		return cmd, nil
	},
	// The report is the last line, as a JSON stream's last result is.
	Report: func(stdout []byte) string {
		lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
		return lines[len(lines)-1]
	},
}

// env is one isolated notes home and project.
type env struct {
	home, cwd, project, global string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{home: filepath.Join(t.TempDir(), "notes"), cwd: t.TempDir()}
	t.Setenv("HOME", t.TempDir())
	t.Setenv(notes.HomeEnv, e.home)
	sp, err := notes.Open(e.home).Space(e.cwd)
	if err != nil {
		t.Fatal(err)
	}
	e.project, e.global = sp.ProjectDir(), sp.GlobalDir()
	return e
}

// seed writes the notes every test starts from: nested folders, a global
// note, a link and a non-default mode, through the notes store itself.
func (e *env) seed(t *testing.T) {
	t.Helper()
	sp, err := notes.Open(e.home).Space(e.cwd)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"index.md":            "# Index\n- api/auth.md: tokens\n",
		"api/auth.md":         "# Auth\nTokens expire after 1h.\n\nno trailing newline",
		"api/deep/nested.md":  "# Nested\nö ü ß, CRLF\r\n",
		"notes-tuesday.md":    "# Tuesday\nmisc\n",
		"~/style.md":          "# Style\nShort sentences.\n",
		"~/tools/editor.md":   "# Editor\nvim\n",
		"empty-first-line.md": "\n\n# Late heading\n",
	} {
		if _, err := sp.Write(notes.WriteRequest{Name: name, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("api/auth.md", filepath.Join(e.project, "auth-link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.project, "empty-folder"), 0o700); err != nil {
		t.Fatal(err)
	}
}

// tree is every file, folder and link under dir, dot files included, with
// its bytes, mode or target: what "byte for byte" compares.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fi, _ := os.Lstat(p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = fmt.Sprintf("dir %o", fi.Mode().Perm())
		default:
			data, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("file %o %q", fi.Mode().Perm(), data)
		}
		return nil
	})
	return out
}

// notesTree is tree without the lock files, which a pass creates and
// nothing restores (they are not notes).
func notesTree(t *testing.T, dirs ...string) map[string]string {
	out := map[string]string{}
	for _, d := range dirs {
		for p, v := range tree(t, d) {
			if base := filepath.Base(p); p == "." || base == dreamLockName || base == notesLockName {
				continue
			}
			out[d+"|"+p] = v
		}
	}
	return out
}

func same(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %s is %q, want %q", what, p, got[p], w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s exists (%q), want it gone", what, p, got[p])
		}
	}
}

func (e *env) options(t *testing.T, ops []op) Options {
	raw, _ := json.Marshal(ops)
	return Options{
		Home: e.home, Cwd: e.cwd, Harness: fake, Timeout: 5 * time.Minute,
		Env: []string{fakeEnv + "=" + string(raw), fakeBinEnv + "=" + os.Args[0], "PATH=/usr/bin:/bin", "HOME=" + os.Getenv("HOME")},
	}
}

func (e *env) run(t *testing.T, ops []op) (Result, string) {
	t.Helper()
	p, err := NewPlan(e.options(t, ops))
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	res, err := p.Run(context.Background(), &progress)
	if err != nil {
		t.Fatalf("Run: %v\nprogress:\n%s", err, progress.String())
	}
	return res, progress.String()
}

// TestUndoRestoresByteForByte: whatever a pass did to the notes (changed,
// created in new nested folders, deleted down to an empty folder, in the
// project and global scopes, a link re-pointed, a mode changed), --undo
// leaves the folders exactly as they were before it.
func TestUndoRestoresByteForByte(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  func(e *env) []op
	}{
		{"edit one note", func(e *env) []op {
			return []op{{Op: "write", Path: filepath.Join(e.project, "index.md"), Data: "# Index\n(rewritten)\n"}}
		}},
		{"create notes in new nested folders", func(e *env) []op {
			return []op{
				{Op: "write", Path: filepath.Join(e.project, "a/b/c/merged.md"), Data: "# Merged\n"},
				{Op: "write", Path: filepath.Join(e.global, "new.md"), Data: "# New global\n"},
			}
		}},
		{"delete notes and their folder", func(e *env) []op {
			return []op{
				{Op: "delete", Path: filepath.Join(e.project, "api/deep/nested.md")},
				{Op: "delete", Path: filepath.Join(e.project, "api/deep")},
				{Op: "delete", Path: filepath.Join(e.global, "tools/editor.md")},
				{Op: "delete", Path: filepath.Join(e.project, "empty-folder")},
			}
		}},
		{"merge: write one, delete two", func(e *env) []op {
			return []op{
				{Op: "write", Path: filepath.Join(e.project, "api/auth.md"), Data: "# Auth\nmerged\n"},
				{Op: "delete", Path: filepath.Join(e.project, "notes-tuesday.md")},
				{Op: "delete", Path: filepath.Join(e.project, "empty-first-line.md")},
			}
		}},
		{"link re-pointed, mode changed, folder where a note was", func(e *env) []op {
			return []op{
				{Op: "delete", Path: filepath.Join(e.project, "auth-link.md")},
				{Op: "link", Path: filepath.Join(e.project, "auth-link.md"), Data: "index.md"},
				{Op: "chmod", Path: filepath.Join(e.project, "index.md")},
				{Op: "delete", Path: filepath.Join(e.project, "notes-tuesday.md")},
				{Op: "write", Path: filepath.Join(e.project, "notes-tuesday.md", "inner.md"), Data: "x"},
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.seed(t)
			orig := notesTree(t, e.project, e.global)
			res, progress := e.run(t, tc.ops(e))
			if res.Report != fakeReport {
				t.Errorf("report %q, want %q", res.Report, fakeReport)
			}
			if !strings.Contains(progress, "progress line one") {
				t.Errorf("the harness's output did not reach progress: %q", progress)
			}
			if len(res.Changed) == 0 {
				t.Errorf("the pass changed nothing it reports")
			}
			mid := notesTree(t, e.project, e.global)
			if fmt.Sprint(mid) == fmt.Sprint(orig) {
				t.Fatal("the fake pass changed nothing; the test would prove nothing")
			}
			u, err := Undo(e.home, e.cwd, false)
			if err != nil {
				t.Fatalf("Undo: %v", err)
			}
			if u.PassDir != res.PassDir {
				t.Errorf("undid %s, want the pass %s", u.PassDir, res.PassDir)
			}
			same(t, "after undo", notesTree(t, e.project, e.global), orig)
			// The store reads the restored notes as before.
			sp, _ := notes.Open(e.home).Space(e.cwd)
			if r, err := sp.Read(notes.ReadRequest{Name: "api/auth.md"}); err != nil || !strings.Contains(r.Render(), "no trailing newline") {
				t.Errorf("api/auth.md after undo: %v %q", err, r.Render())
			}
			// A second undo has nothing to do.
			if _, err := Undo(e.home, e.cwd, false); err == nil || !strings.Contains(err.Error(), "undone already") {
				t.Errorf("second Undo: %v, want refusal saying it was undone already", err)
			}
		})
	}
}

// TestUndoEmptyStore: a pass over no notes at all that creates some is
// undone to no notes.
func TestUndoEmptyStore(t *testing.T) {
	e := newEnv(t)
	e.run(t, []op{{Op: "write", Path: filepath.Join(e.project, "x/y.md"), Data: "# Y\n"}})
	if _, err := Undo(e.home, e.cwd, false); err != nil {
		t.Fatal(err)
	}
	if got := notesTree(t, e.project, e.global); len(got) != 0 {
		t.Errorf("after undo the folders hold %v, want nothing", got)
	}
}

// TestUndoRefusesLaterChanges: a note written after the pass ended makes
// --undo refuse, naming it; --force restores the snapshot anyway.
func TestUndoRefusesLaterChanges(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	orig := notesTree(t, e.project, e.global)
	e.run(t, []op{{Op: "write", Path: filepath.Join(e.project, "index.md"), Data: "# by the pass\n"}})
	sp, _ := notes.Open(e.home).Space(e.cwd)
	if _, err := sp.Write(notes.WriteRequest{Name: "later.md", Content: "# Written after the pass\n"}); err != nil {
		t.Fatal(err)
	}
	before := notesTree(t, e.project, e.global)
	_, err := Undo(e.home, e.cwd, false)
	if err == nil || !strings.Contains(err.Error(), "later.md") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("Undo: %v, want a refusal naming later.md and --force", err)
	}
	same(t, "after the refused undo", notesTree(t, e.project, e.global), before)
	if _, err := Undo(e.home, e.cwd, true); err != nil {
		t.Fatalf("Undo --force: %v", err)
	}
	same(t, "after undo --force", notesTree(t, e.project, e.global), orig)
}

// TestBusyRefused: while a dream holds the notes, another pass and an undo
// are refused at once, naming the holder, and change nothing.
func TestBusyRefused(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	e.run(t, []op{{Op: "write", Path: filepath.Join(e.project, "index.md"), Data: "# by the first pass\n"}})
	for _, busy := range []string{"project", "global"} {
		t.Run(busy+" held", func(t *testing.T) {
			dir := map[string]string{"project": e.project, "global": e.global}[busy]
			release, err := lockDreams([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			orig := notesTree(t, e.project, e.global)
			passes, _ := passNames(passesFolder(e.home, mustSpace(t, e)))
			p, err := NewPlan(e.options(t, []op{{Op: "write", Path: filepath.Join(e.project, "second.md"), Data: "x"}}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Run(context.Background(), &bytes.Buffer{})
			if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
				t.Errorf("second Run: %v, want ErrBusy naming pid %d", err, os.Getpid())
			}
			if _, err := Undo(e.home, e.cwd, false); !errors.Is(err, ErrBusy) {
				t.Errorf("Undo during a pass: %v, want ErrBusy", err)
			}
			same(t, "after the refusals", notesTree(t, e.project, e.global), orig)
			if now, _ := passNames(passesFolder(e.home, mustSpace(t, e))); len(now) != len(passes) {
				t.Errorf("a refused pass left a snapshot: %v, was %v", now, passes)
			}
		})
	}
}

func mustSpace(t *testing.T, e *env) *notes.Space {
	sp, err := notes.Open(e.home).Space(e.cwd)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestDryRunChangesNothing: a plan names the harness, the notes and the
// command, and making and rendering it creates no file anywhere under the
// notes home (no lock, no snapshot, no folder) and starts no harness.
func TestDryRunChangesNothing(t *testing.T) {
	for _, seeded := range []bool{false, true} {
		t.Run(fmt.Sprintf("seeded=%v", seeded), func(t *testing.T) {
			e := newEnv(t)
			if seeded {
				e.seed(t)
			}
			home := tree(t, filepath.Dir(e.home))
			marker := filepath.Join(t.TempDir(), "started")
			p, err := NewPlan(e.options(t, []op{{Op: "write", Path: marker, Data: "x"}}))
			if err != nil {
				t.Fatal(err)
			}
			out := p.Render()
			for _, want := range []string{"dry run", "harness:  fake", e.project, "<prompt>", PromptMarker, "notes_write"} {
				if !strings.Contains(out, want) {
					t.Errorf("plan lacks %q:\n%s", want, out)
				}
			}
			same(t, "notes home after the plan", tree(t, filepath.Dir(e.home)), home)
			if _, err := os.Stat(marker); err == nil {
				t.Error("the plan started the harness")
			}
		})
	}
}

// TestStoppedPassIsRecorded: a pass stopped midway (its context ends, as
// at the timeout) is reported as stopped, and what it changed is recorded,
// so a plain --undo restores the snapshot.
func TestStoppedPassIsRecorded(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	orig := notesTree(t, e.project, e.global)
	ready := filepath.Join(t.TempDir(), "ready")
	p, err := NewPlan(e.options(t, []op{
		{Op: "write", Path: filepath.Join(e.project, "half.md"), Data: "# half done\n"},
		{Op: "ready", Path: ready},
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := p.Run(ctx, &bytes.Buffer{}); done <- err }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake harness never got ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the stopped pass did not return")
	}
	if err == nil {
		t.Fatal("a stopped pass reported success")
	}
	if _, err := Undo(e.home, e.cwd, false); err != nil {
		t.Fatalf("Undo after a stopped pass: %v", err)
	}
	same(t, "after undo", notesTree(t, e.project, e.global), orig)
}

// TestUndoWithoutEnd: a pass whose end was never recorded (notesoup
// killed) is restored only with --force.
func TestUndoWithoutEnd(t *testing.T) {
	e := newEnv(t)
	e.seed(t)
	orig := notesTree(t, e.project, e.global)
	res, _ := e.run(t, []op{{Op: "delete", Path: filepath.Join(e.project, "index.md")}})
	if err := os.Remove(filepath.Join(res.PassDir, afterFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(e.home, e.cwd, false); err == nil || !strings.Contains(err.Error(), "did not record its end") {
		t.Fatalf("Undo: %v, want a refusal saying the end was not recorded", err)
	}
	if _, err := Undo(e.home, e.cwd, true); err != nil {
		t.Fatal(err)
	}
	same(t, "after undo --force", notesTree(t, e.project, e.global), orig)
}

// TestDamagedSnapshotRefused: a snapshot entry that leaves the folder,
// names a dot file or sits under a link is refused before anything is
// written.
func TestDamagedSnapshotRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []Entry
	}{
		{"parent path", []Entry{{Path: "../escape.md", Kind: kindFile, Mode: 0o600, Data: []byte("x")}}},
		{"absolute path", []Entry{{Path: "/tmp/escape.md", Kind: kindFile, Mode: 0o600}}},
		{"the lock file", []Entry{{Path: ".lock", Kind: kindFile, Mode: 0o600}}},
		{"under a link", []Entry{{Path: "out", Kind: kindLink, Link: "/tmp"}, {Path: "out/x.md", Kind: kindFile, Mode: 0o600}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "keep.md"), []byte("keep"), 0o600)
			before := tree(t, dir)
			if _, err := restoreScope(dir, tc.entries); err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("restoreScope: %v, want a refusal", err)
			}
			same(t, "after the refusal", tree(t, dir), before)
		})
	}
}

// TestPlaybookCopies: the embedded playbook and skill are the canonical
// files, byte for byte.
func TestPlaybookCopies(t *testing.T) {
	for copy, canon := range map[string]string{playbook: "../playbook/dream.md", skill: "../skills/dream/SKILL.md"} {
		data, err := os.ReadFile(canon)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != copy {
			t.Errorf("the embedded copy of %s differs; copy it into dream/ again", canon)
		}
	}
}

// TestStreamer: the harness's output reaches progress line by line
// however it is split, an over-long line is left out of progress, and the
// report keeps the end of the output.
func TestStreamer(t *testing.T) {
	var progress bytes.Buffer
	s := &streamer{progress: &progress, render: func(b []byte) string { return "> " + string(b) }}
	long := strings.Repeat("x", maxProgressLine+10)
	for _, chunk := range []string{"fir", "st\nsec", "ond\n", long[:100], long[100:], "\nlast"} {
		s.Write([]byte(chunk))
	}
	s.flush()
	if got, want := progress.String(), "> first\n> second\n> last\n"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	if !strings.HasSuffix(s.buf.String(), "\nlast") {
		t.Errorf("kept output does not end with the last line")
	}
}

// TestFindBinary: the override wins over PATH and must be an executable
// file; without either the error names the variable to set.
func TestFindBinary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "fake-cli")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("x"), 0o644)
	h := headless.Harness{Name: "fake", Binary: "fake-cli", BinEnv: "FAKE_BIN"}
	for _, tc := range []struct {
		name, want, err string
		env             []string
	}{
		{"on PATH", exe, "", []string{"PATH=/nonexistent:" + dir}},
		{"override", plain + "x", "", nil},
		{"override not executable", "", "FAKE_BIN=" + plain + " is not an executable", []string{"FAKE_BIN=" + plain, "PATH=" + dir}},
		{"nowhere", "", "set FAKE_BIN", []string{"PATH=/nonexistent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env
			if tc.name == "override" {
				os.WriteFile(plain+"x", []byte("#!/bin/sh\n"), 0o755)
				env = []string{"FAKE_BIN=" + plain + "x", "PATH=" + dir}
			}
			got, err := FindBinary(h, env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
