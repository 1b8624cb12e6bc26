package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRetention: cleanupPeriodDays (default 30) and the next deletion, the
// oldest transcript's mtime plus the period; a century keeps them.
func TestRetention(t *testing.T) {
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name     string
		settings string // "" : no settings.json
		deletes  bool
		setting  string
		period   time.Duration
	}{
		{"default", "", true, "cleanupPeriodDays = 30 (default)", 30 * 24 * time.Hour},
		{"set", `{"cleanupPeriodDays": 7}`, true, "cleanupPeriodDays = 7 (", 7 * 24 * time.Hour},
		{"a century", `{"cleanupPeriodDays": 36500}`, false, "cleanupPeriodDays = 36500 (", 0},
		{"broken settings", `{`, true, "cleanupPeriodDays = 30 (default)", 30 * 24 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv(ConfigDirEnv, dir)
			proj := filepath.Join(dir, "projects", "-work")
			os.MkdirAll(proj, 0o700)
			for i, name := range []string{"a.jsonl", "b.jsonl", "notes.txt"} {
				p := filepath.Join(proj, name)
				os.WriteFile(p, []byte("{}\n"), 0o600)
				mt := old.Add(time.Duration(i) * time.Hour)
				if name == "notes.txt" {
					mt = old.Add(-48 * time.Hour) // not a transcript: not counted
				}
				os.Chtimes(p, mt, mt)
			}
			if tc.settings != "" {
				os.WriteFile(filepath.Join(dir, "settings.json"), []byte(tc.settings), 0o600)
			}
			r := Retention(context.Background(), nil)
			if !r.Known || r.Deletes != tc.deletes || !strings.HasPrefix(r.Setting, tc.setting) || r.Period != tc.period {
				t.Fatalf("got %+v; want deletes %v, setting %q, period %v", r, tc.deletes, tc.setting, tc.period)
			}
			if !tc.deletes {
				return
			}
			if !r.Oldest.Equal(old) || !r.Next.Equal(old.Add(tc.period)) {
				t.Fatalf("oldest %v next %v; want %v and %v", r.Oldest, r.Next, old, old.Add(tc.period))
			}
			if tc.name == "broken settings" && r.Note == "" {
				t.Fatalf("a broken settings.json is not named: %+v", r)
			}
		})
	}
}
