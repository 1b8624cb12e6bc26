package claude

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRootFrom(t *testing.T) {
	home := func() (string, error) { return "/home/me", nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == ConfigDirEnv {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		getenv func(string) string
		home   func() (string, error)
		want   string
		err    bool
	}{
		{env(""), home, "/home/me/.claude/projects", false},
		{env("/etc/claude-alt"), home, "/etc/claude-alt/projects", false},
		{env("/etc/claude-alt"), noHome, "/etc/claude-alt/projects", false},
		{env(""), noHome, "", true},
	}
	for _, tc := range tests {
		got, err := rootFrom(tc.getenv, tc.home)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("rootFrom = %q, %v; want %q (err %v)", got, err, tc.want, tc.err)
		}
	}
}

func TestListSessions(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "-work-proj")
	if err := os.MkdirAll(filepath.Join(proj, fixtureSID, "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyTo := func(src, dst string) {
		b, err := os.ReadFile(fixture(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyTo("basic.jsonl", filepath.Join(proj, fixtureSID+".jsonl"))
	// A subagent file is not a session of its own.
	copyTo("basic.jsonl", filepath.Join(proj, fixtureSID, "subagents", "agent-a0123456789abcdef.jsonl"))
	// A titled session whose first rows are engine echoes; its title is at
	// the end, beyond the head scan.
	titled := filepath.Join(proj, "44444444-4444-4444-8444-444444444444.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"user","uuid":"c","parentUuid":null,"cwd":"/work/proj","timestamp":"2026-03-01T09:00:00Z","isMeta":true,"message":{"role":"user","content":"<local-command-caveat>x</local-command-caveat>"}}` + "\n")
	b.WriteString(`{"type":"user","uuid":"d","parentUuid":"c","cwd":"/work/proj","timestamp":"2026-03-01T09:00:01Z","message":{"role":"user","content":"  fix the\nflaky   test  "}}` + "\n")
	for b.Len() < headScanBytes+tailScanBytes {
		b.WriteString(`{"type":"progress","data":"` + strings.Repeat("p", 1000) + `"}` + "\n")
	}
	b.WriteString(`{"type":"custom-title","customTitle":"old name"}` + "\n")
	b.WriteString(`{"type":"ai-title","aiTitle":"ai name"}` + "\n")
	b.WriteString(`{"type":"custom-title","customTitle":"my named session"}` + "\n")
	b.WriteString(`{"type":"assistant","uuid":"e","parentUuid":"d","timestamp":"2026-03-01T11:30:00Z","message":{"role":"assistant","content":"ok"}}` + "\n")
	if err := os.WriteFile(titled, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ss, err := listSessions(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 {
		t.Fatalf("got %d sessions, want 2: %+v", len(ss), ss)
	}
	byID := map[string]int{}
	for i, s := range ss {
		byID[s.ID] = i
	}
	basic := ss[byID[fixtureSID]]
	if basic.Harness != "claude" || basic.Cwd != "/work/proj" || basic.Title != "Please list the files and say HELLO" ||
		!basic.Started.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) || !basic.Updated.Equal(time.Date(2026, 3, 1, 10, 0, 10, 0, time.UTC)) ||
		basic.Size == 0 || !filepath.IsAbs(basic.Path) {
		t.Errorf("basic session = %+v", basic)
	}
	named := ss[byID["44444444-4444-4444-8444-444444444444"]]
	if named.Title != "my named session" || !named.Updated.Equal(time.Date(2026, 3, 1, 11, 30, 0, 0, time.UTC)) {
		t.Errorf("named session = %+v", named)
	}
	// Without a custom title the first typed prompt is the title, one line.
	os.WriteFile(titled, []byte(b.String()[:strings.Index(b.String(), `{"type":"custom-title"`)]), 0o600)
	s, err := SessionInfo(titled)
	if err != nil || s.Title != "fix the flaky test" {
		t.Errorf("untitled session title = %q, %v", s.Title, err)
	}
	if ss, err := listSessions(filepath.Join(root, "absent")); err != nil || len(ss) != 0 {
		t.Errorf("missing root: %v, %v", ss, err)
	}
}

// TestFindSessionsReadsOnlyNamedFiles: looking for one id describes only
// the transcripts named for it.
func TestFindSessionsReadsOnlyNamedFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "-work-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","cwd":"/work/proj","timestamp":"2026-12-02T10:00:00Z","message":{"role":"user","content":"hello"}}` + "\n"
	for _, id := range []string{"0b5e8a61-0000-4000-8000-000000000001", "0b5e8a61-0000-4000-8000-000000000002", "77777777-0000-4000-8000-000000000003"} {
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix string
		want   int // sessions described: only the files named for the prefix
	}{
		{prefix: "0b5e8a61", want: 2},
		{prefix: "77777777-0000-4000-8000-000000000003", want: 1},
		{prefix: "zzzz", want: 0},
		{prefix: "", want: 3},
	}
	for _, tc := range tests {
		got, err := findSessions(root, tc.prefix)
		if err != nil {
			t.Fatalf("findSessions(%q): %v", tc.prefix, err)
		}
		if len(got) != tc.want {
			t.Errorf("findSessions(%q) described %d sessions, want %d", tc.prefix, len(got), tc.want)
		}
		for _, s := range got {
			if !strings.HasPrefix(s.ID, tc.prefix) {
				t.Errorf("findSessions(%q) described %s", tc.prefix, s.ID)
			}
		}
	}
}
