package pi

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

const toolsSession = "../../testdata/transcripts/pi/tools/2026-12-02T12-07-00-063Z_01a236a6-a2de-75bd-a83e-3ff443212984.jsonl"

// TestSessionNameIsTheTitle: a session named with pi's /name (a
// session_info entry, pi 0.73.1) is listed, and found by a query, under
// the latest name, wherever the listing reads it (in the head of a short
// file, the tail of a long one); an empty name clears it and the first
// prompt is the title again, as in pi's own listing.
func TestSessionNameIsTheTitle(t *testing.T) {
	rec, err := os.ReadFile(toolsSession)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimRight(rec, "\n"), []byte("\n"))
	last := lastID(t, lines)
	info := func(id, name string) string {
		return fmt.Sprintf(`{"type":"session_info","id":"%s","parentId":"%s","timestamp":"2026-12-02T12:08:00.000Z","name":%q}`+"\n", id, last, name)
	}
	// pad is a long session's middle: custom entries on the same leaf.
	pad := func() string {
		var b strings.Builder
		for i := 0; b.Len() < headLimit+harness64k; i++ {
			fmt.Fprintf(&b, `{"type":"custom","customType":"pad","data":{"x":"%s"},"id":"pad%05d","parentId":"%s","timestamp":"2026-12-02T12:07:59.000Z"}`+"\n", strings.Repeat("p", 500), i, last)
		}
		return b.String()
	}
	prompt := firstPrompt(t)
	tests := []struct {
		name, extra, want string
	}{
		{name: "named in a short session", extra: info("n1", "  Release checklist "), want: "Release checklist"},
		{name: "renamed: the latest name wins", extra: info("n1", "old name") + info("n2", "new name"), want: "new name"},
		{name: "name cleared", extra: info("n1", "old name") + info("n2", ""), want: prompt},
		{name: "named at the end of a long session", extra: info("n1", "early name") + pad() + info("n2", "late name"), want: "late name"},
		{name: "no name", extra: "", want: prompt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "--w--")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, filepath.Base(toolsSession))
			if err := os.WriteFile(p, append(append([]byte{}, rec...), tc.extra...), 0o600); err != nil {
				t.Fatal(err)
			}
			ss, err := listSessions([]string{root})
			if err != nil || len(ss) != 1 {
				t.Fatalf("listed %d sessions, %v", len(ss), err)
			}
			if ss[0].Title != tc.want {
				t.Errorf("title %q, want %q", ss[0].Title, tc.want)
			}
			if tc.extra != "" && tc.want != prompt {
				cat := history.StaticCatalog{Names: []string{Name}, List: func(string) ([]history.Session, error) { return ss, nil }}
				if got, err := history.ListSessions(cat, history.SessionQuery{Query: tc.want}); err != nil || len(got) != 1 {
					t.Errorf("a query for the name %q finds %d sessions", tc.want, len(got))
				}
			}
		})
	}
}

const harness64k = 64 << 10

func lastID(t *testing.T, lines [][]byte) string {
	t.Helper()
	l := lines[len(lines)-1]
	i := bytes.Index(l, []byte(`"id":"`))
	if i < 0 {
		t.Fatal("no id on the last line")
	}
	rest := l[i+6:]
	return string(rest[:bytes.IndexByte(rest, '"')])
}

func firstPrompt(t *testing.T) string {
	t.Helper()
	s, ok, err := Describe(toolsSession)
	if err != nil || !ok || s.Title == "" {
		t.Fatalf("the recorded session has no prompt title: %v %v %+v", ok, err, s)
	}
	return s.Title
}
