//go:build !light

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/internal/filelock"
)

// TestDreamCLI: dream on the command table. Usage errors exit 2 naming the
// flag; --dry-run prints the plan and exits 0; an undo with nothing to undo
// is a failure (2) that says so; a pass refused because another holds the
// notes exits 3 (docs/dream.md), and its harness never starts.
func TestDreamCLI(t *testing.T) {
	home := isolate(t)
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	// A harness CLI that leaves a mark if it is ever started.
	started := filepath.Join(home, "started")
	bin := filepath.Join(home, "fake-claude")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\ntouch "+started+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NOTESOUP_CLAUDE_BIN", bin)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"dream", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"dream", "--force"}, 2, "", "--force goes with --undo"},
		{[]string{"dream", "--undo", "--dry-run"}, 2, "", "do not go together"},
		{[]string{"dream", "--timeout", "0s"}, 2, "", "give a positive duration"},
		{[]string{"dream", "--timeout", "soon"}, 2, "", "--timeout"},
		{[]string{"dream", "--harness", "codx", "--dry-run"}, 2, "", `did you mean "codex"?`},
		{[]string{"dream", "--dry-rn"}, 2, "", `did you mean "--dry-run"?`},
		{[]string{"dream", "--undo", "--cwd", work}, 2, "", "no dream pass to undo"},
		{[]string{"dream", "--dry-run", "--cwd", work}, 0, bin, ""},
	} {
		out, errOut, code := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, out, errOut, tc.code, tc.stdout, tc.stderr)
		}
	}

	// Another pass holds the global notes: refused at once, exit 3.
	global := filepath.Join(home, ".notesoup", "global")
	if err := os.MkdirAll(global, 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := filelock.Acquire(filepath.Join(global, ".dream.lock"), 0o600, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, errOut, code := runCLI(t, "dream", "--cwd", work, "--timeout", "1m")
	if code != exitBusy || !strings.Contains(errOut, "another dream pass is running") {
		t.Errorf("dream while another holds the notes: exit %d, stderr %q; want 3", code, errOut)
	}
	if _, err := os.Stat(started); err == nil {
		t.Errorf("the harness was started although the notes were busy")
	}
}
