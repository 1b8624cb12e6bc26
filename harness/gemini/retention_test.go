package gemini

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRetention: general.sessionRetention (enabled, maxAge "30d" by
// default, maxCount) and the next deletion, the oldest chat's mtime plus
// maxAge.
func TestRetention(t *testing.T) {
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		name     string
		settings string
		deletes  bool
		period   time.Duration
		note     string
	}{
		{"default", "", true, 30 * day, ""},
		{"maxAge in weeks, with comments", "// mine\n{\"general\": {\"sessionRetention\": {\"maxAge\": \"2w\"}}}", true, 14 * day, ""},
		{"hours and a count", `{"general": {"sessionRetention": {"maxAge": "24h", "maxCount": 50}}}`, true, day, "newest 50"},
		{"disabled", `{"general": {"sessionRetention": {"enabled": false}}}`, false, 0, ""},
		{"unreadable maxAge", `{"general": {"sessionRetention": {"maxAge": "soon"}}}`, true, 0, "maxAge \"soon\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv(envHome, home)
			chats := filepath.Join(home, ".gemini", "tmp", "proj", "chats")
			os.MkdirAll(chats, 0o700)
			for i, name := range []string{"session-a.json", "session-b.json"} {
				p := filepath.Join(chats, name)
				os.WriteFile(p, []byte("{}"), 0o600)
				mt := old.Add(time.Duration(i) * time.Hour)
				os.Chtimes(p, mt, mt)
			}
			if tc.settings != "" {
				os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(tc.settings), 0o600)
			}
			r := Retention(context.Background(), nil)
			if !r.Known || r.Deletes != tc.deletes || r.Period != tc.period || !strings.Contains(r.Note, tc.note) {
				t.Fatalf("got %+v; want deletes %v, period %v, note with %q", r, tc.deletes, tc.period, tc.note)
			}
			if tc.deletes && tc.period > 0 && (!r.Oldest.Equal(old) || !r.Next.Equal(old.Add(tc.period))) {
				t.Fatalf("oldest %v next %v; want %v and %v", r.Oldest, r.Next, old, old.Add(tc.period))
			}
		})
	}
}
