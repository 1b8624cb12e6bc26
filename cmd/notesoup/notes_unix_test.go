//go:build !light && unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	if code != 2 || !strings.Contains(stderr, "over the 65536-byte limit") {
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
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--file %s: exit %d, %q; want %q", tc.file, code, stderr, tc.want)
		}
	}

	code, _, stderr = run1(strings.NewReader(""), "notes", "write", "keep.md")
	if code != 2 || !strings.Contains(stderr, "--allow-empty") {
		t.Errorf("empty stdin over a note: exit %d, %q; want a refusal naming --allow-empty", code, stderr)
	}
	if code, out, _ := run1(nil, "notes", "read", "--raw", "keep.md"); code != 0 || out != "# Keep\n" {
		t.Errorf("note after the refused write: %q", out)
	}
	if code, out, stderr := run1(strings.NewReader(""), "notes", "write", "keep.md", "--allow-empty"); code != 0 || !strings.Contains(out, "Replaced keep.md (0 B") {
		t.Errorf("--allow-empty: exit %d, %q %q", code, out, stderr)
	}
}

// TestNotesOutputTerminalSafe: escapes in notes (written by any tool) do
// not reach the terminal from `boot`, `notes read`, `notes list` or their
// --json forms, while --json still decodes to the exact text and --raw
// into a pipe stays exact. Before the fix `boot` printed OSC 0, OSC 52,
// CSI, C1 and bidi controls raw, and `notes read --json` kept U+009B and
// U+202E.
func TestNotesOutputTerminalSafe(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	common := []string{"--home", home, "--cwd", proj}
	const evil = "# Evil \x1b]0;owned\x07 title\n\x1b]52;c;cm0gLXJmIH4=\x07clip \x1b[2J\u009b31mred \u202eevil\u2066 \x7f\r\n"
	run1 := func(stdin string, args ...string) (int, string, string) {
		notesStdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		code := run(append(append([]string{}, args...), common...), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, stderr := run1(evil, "notes", "write", "evil.md"); code != 0 {
		t.Fatalf("write: %s", stderr)
	}
	raw := []string{"\x1b", "\x07", "\u009b", "\u202e", "\u2066", "\x7f", "\r"}
	for _, args := range [][]string{
		{"boot", "--harness", "claude", "--session", "s"},
		{"boot", "--harness", "claude", "--session", "s", "--json"},
		{"notes", "read", "evil.md"},
		{"notes", "read", "evil.md", "--json"},
		{"notes", "list"},
		{"notes", "list", "--json"},
	} {
		code, out, stderr := run1("", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for _, r := range raw {
			if strings.Contains(out, r) {
				t.Errorf("%v prints %q raw", args, r)
			}
		}
		if !strings.Contains(out, `\e]52;c;`) && !strings.Contains(out, `\u001b]52;c;`) && args[1] != "list" {
			t.Errorf("%v does not show the escape as text:\n%s", args, out)
		}
	}
	// --json decodes to the exact note.
	_, out, _ := run1("", "notes", "read", "evil.md", "--json")
	var r notes.ReadResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Content != evil {
		t.Errorf("--json decodes to %q, %v; want the exact note", r.Content, err)
	}
	// --raw into a pipe is the exact note.
	if _, out, _ := run1("", "notes", "read", "evil.md", "--raw"); out != evil {
		t.Errorf("--raw into a pipe = %q", out)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	regular, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer regular.Close()
	// /dev/null is a character device but no terminal (isatty).
	if isTerminal(devnull) || isTerminal(regular) || isTerminal(&bytes.Buffer{}) {
		t.Errorf("isTerminal: /dev/null %v, a file %v, a buffer %v", isTerminal(devnull), isTerminal(regular), isTerminal(&bytes.Buffer{}))
	}
}

// TestNotesReadPagedCLI: a note longer than a page is shown a page at a
// time with the --offset that continues it; --raw gives all of it.
func TestNotesReadPagedCLI(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	common := []string{"--home", home, "--cwd", proj}
	var b strings.Builder
	for i := 0; b.Len() < notes.MaxNoteBytes-100; i++ {
		fmt.Fprintf(&b, "line %05d of a long note\n", i)
	}
	long := b.String()
	run1 := func(stdin string, args ...string) (int, string, string) {
		notesStdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		code := run(append(append([]string{}, args...), common...), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, stderr := run1(long, "notes", "write", "long.md"); code != 0 {
		t.Fatalf("write: %s", stderr)
	}
	code, out, _ := run1("", "notes", "read", "long.md")
	i := strings.LastIndex(out, "continue with --offset ")
	if code != 0 || len(out) > notes.MaxReadAnswerBytes || i < 0 {
		t.Fatalf("first page: exit %d, %d bytes, no continuation", code, len(out))
	}
	var next int
	fmt.Sscanf(out[i+len("continue with --offset "):], "%d", &next)
	code, out, _ = run1("", "notes", "read", "long.md", "--offset", fmt.Sprint(next))
	if code != 0 || !strings.Contains(out, "line ") || len(out) > notes.MaxReadAnswerBytes {
		t.Errorf("second page: exit %d, %d bytes", code, len(out))
	}
	if _, out, _ := run1("", "notes", "read", "long.md", "--raw"); out != long {
		t.Errorf("--raw gave %d bytes, want the whole %d-byte note", len(out), len(long))
	}
}
