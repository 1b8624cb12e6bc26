package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

// fixture copies the recorded database of scenario (under
// testdata/transcripts/opencode) into a fresh root as opencode.db and
// returns the root and the database's path.
func fixture(t testing.TB, scenario string) (string, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "transcripts", "opencode", scenario, "opencode.db"))
	if err != nil {
		t.Fatalf("the recorded %s database: %v (re-record with e2e/record.sh testdata/transcripts opencode/%s)", scenario, err, scenario)
	}
	root := t.TempDir()
	db := filepath.Join(root, "opencode.db")
	if err := os.WriteFile(db, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return root, db
}

// isolate points every place the plugin looks at by default into a
// temporary directory, so no test reads the real home.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(dataHomeEnv, filepath.Join(home, "data"))
	t.Setenv(dbEnv, "")
	return home
}

// list lists the sessions under root.
func list(t testing.TB, root string, f contract.SessionFilter) []contract.Session {
	t.Helper()
	f.Roots = []string{root}
	var out []contract.Session
	if err := (Harness{}).ListSessions(context.Background(), f, func(s contract.Session) error {
		out = append(out, s)
		return nil
	}); err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// decodeAll decodes a session and collects its events.
func decodeAll(root string, s contract.Session) ([]contract.Event, contract.Summary, error) {
	var evs []contract.Event
	sum, err := Harness{}.Decode(context.Background(), contract.DecodeRequest{Session: s, Roots: []string{root}}, func(e contract.Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, sum, err
}

// dirNames lists the names in dir.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
