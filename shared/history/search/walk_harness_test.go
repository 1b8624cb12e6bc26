package search

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
)

// TestWalkersListWhatTheHarnessesList: the search's own walkers (faster,
// reading no file) list exactly the session files each harness lists, so a
// search covers every session history_list can read and no other file.
func TestWalkersListWhatTheHarnessesList(t *testing.T) {
	root := walkFixture(t)
	paths := func(ss []history.Session, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range ss {
			out = append(out, s.Path)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(ps []string, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ps = slices.Clone(ps)
		slices.Sort(ps)
		return ps
	}
	in := func(dir string) []string { return []string{filepath.Join(root, dir), filepath.Join(root, "missing")} }
	tests := []struct {
		name       string
		walk, want []string
	}{
		{"claude", paths(ClaudeFiles(in("claude"))), sorted(claude.SessionFiles(in("claude"), ""))},
		{"pi", paths(PiFiles(in("pi"))), sorted(pi.SessionFiles(in("pi"), ""))},
		{"codex", paths(CodexFiles(in("codex"))), sorted(codex.SessionFiles(in("codex"), ""))},
	}
	for _, tc := range tests {
		if len(tc.want) == 0 {
			t.Errorf("%s: the fixture holds no session file", tc.name)
		}
		if !slices.Equal(tc.walk, tc.want) {
			t.Errorf("%s:\n search walker %v\n harness       %v", tc.name, tc.walk, tc.want)
		}
	}
}
