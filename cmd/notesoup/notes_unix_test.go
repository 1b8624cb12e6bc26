//go:build !light && unix

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/notes"
)

// endless is stdin that never ends (like `yes |`), counting what was read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestNotesWriteInputBounded: `notes write` stops reading its input one
// byte past the note limit, takes --file only as a regular file (a FIFO
// without waiting for a writer), and does not erase a note with empty
// input unless --allow-empty says so. Before the fix endless input and
// /dev/zero filled memory and empty stdin replaced a note with nothing.
func TestNotesWriteInputBounded(t *testing.T) {
	home, proj, dir := t.TempDir(), t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	common := []string{"--home", home, "--cwd", proj}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.md")
	if f, err := os.Create(sparse); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(1 << 30)
		f.Close()
	}
	run1 := func(stdin io.Reader, args ...string) (int, string, string) {
		notesStdin = stdin
		var out, errb bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run(append(append([]string{}, args...), common...), &out, &errb) }()
		select {
		case code := <-done:
			return code, out.String(), errb.String()
		case <-time.After(60 * time.Second):
			t.Fatalf("notes %v did not answer within a minute", args)
			return 0, "", ""
		}
	}
	if code, _, stderr := run1(strings.NewReader("# Keep\n"), "notes", "write", "keep.md"); code != 0 {
		t.Fatalf("seed write: %s", stderr)
	}

	in := &endless{}
	code, _, stderr := run1(in, "notes", "write", "big.md")
	if code != 1 || !strings.Contains(stderr, "over the 65536-byte limit") {
		t.Errorf("endless stdin: exit %d, %q", code, stderr)
	}
	if in.n > notes.MaxNoteBytes+1 {
		t.Errorf("read %d bytes of endless stdin, want at most %d", in.n, notes.MaxNoteBytes+1)
	}
	for _, tc := range []struct{ file, want string }{
		{"/dev/zero", "not a regular file"},
		{fifo, "not a regular file"},
		{sparse, "is 1073741824 bytes, over the 65536-byte limit"},
		{dir, "not a regular file"},
		{filepath.Join(dir, "missing.md"), "no such file"},
	} {
		code, _, stderr := run1(strings.NewReader(""), "notes", "write", "f.md", "--file", tc.file)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--file %s: exit %d, %q; want %q", tc.file, code, stderr, tc.want)
		}
	}

	code, _, stderr = run1(strings.NewReader(""), "notes", "write", "keep.md")
	if code != 1 || !strings.Contains(stderr, "--allow-empty") {
		t.Errorf("empty stdin over a note: exit %d, %q; want a refusal naming --allow-empty", code, stderr)
	}
	if code, out, _ := run1(nil, "notes", "read", "--raw", "keep.md"); code != 0 || out != "# Keep\n" {
		t.Errorf("note after the refused write: %q", out)
	}
	if code, out, stderr := run1(strings.NewReader(""), "notes", "write", "keep.md", "--allow-empty"); code != 0 || !strings.Contains(out, "Replaced keep.md (0 B") {
		t.Errorf("--allow-empty: exit %d, %q %q", code, out, stderr)
	}
}
