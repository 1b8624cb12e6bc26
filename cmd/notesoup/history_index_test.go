//go:build !light

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryListCLIIndexMatchesDecode builds the search index over the
// Pi transcripts under testdata (notesoup search, the default cache), then
// runs history list --query over each session from the index (the CLI
// narrows through service.Narrowed) and with the index turned off
// (NOTESOUP_SEARCH_INDEX=0), and requires the same stdout, stderr and exit
// status, text and JSON alike.
func TestHistoryListCLIIndexMatchesDecode(t *testing.T) {
	home, cache := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	root := filepath.Join(t.TempDir(), "pi")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "transcripts", "pi"))); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	roots := []string{"--pi-root", root, "--claude-root", empty, "--codex-root", empty}
	if _, errs, code := runCLI(t, append([]string{"search", "the"}, roots...)...); code != 0 {
		t.Fatalf("search: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(cache, "notesoup", "search", "index")); err != nil {
		t.Fatalf("notesoup search built no index under the default cache: %v", err)
	}
	out, errs, code := runCLI(t, append([]string{"history", "sessions"}, roots...)...)
	if code != 0 {
		t.Fatalf("sessions: exit %d: %s", code, errs)
	}
	var sels []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "pi:") {
			sels = append(sels, f[0])
		}
	}
	if len(sels) < 3 {
		t.Fatalf("history sessions listed %d Pi sessions, want the testdata's: %s", len(sels), out)
	}
	shapes := [][]string{
		nil,
		{"--limit", "2"},
		{"--json", "--oldest", "--limit", "3"},
		{"--json", "--before", "6"},
	}
	compared := 0
	for _, sel := range sels {
		for _, query := range []string{"the", "READ", "—", "zq-found-nowhere"} {
			for _, shape := range shapes {
				args := append(append([]string{"history", "list", "--session", sel, "--query", query}, shape...), roots...)
				t.Setenv("NOTESOUP_SEARCH_INDEX", "")
				gotOut, gotErr, gotCode := runCLI(t, args...)
				t.Setenv("NOTESOUP_SEARCH_INDEX", "0")
				wantOut, wantErr, wantCode := runCLI(t, args...)
				compared++
				if gotOut != wantOut || gotErr != wantErr || gotCode != wantCode {
					t.Errorf("%q:\nindex:  exit %d\n%s%s\ndecode: exit %d\n%s%s", args, gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
				}
			}
		}
	}
	t.Logf("%d sessions, %d listings compared", len(sels), compared)
}
