package service_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
)

const claudeToolsSample = "samples/claude/projects/-tmp-notesoup-record-claude-tools-work/0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl"

// readAll reads every address of a session through HistoryRead (all pages)
// and returns the bodies joined.
func readAll(t *testing.T, s *service.Service, c service.Caller, sel string) string {
	t.Helper()
	ctx := context.Background()
	page, _, err := s.HistoryList(ctx, c, history.ListArgs{Session: sel, ListQuery: history.ListQuery{Oldest: true, Limit: 200}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) == 0 {
		t.Fatal("no entries")
	}
	var b strings.Builder
	for _, e := range page.Entries {
		off := 0
		for {
			r, _, err := s.HistoryRead(ctx, c, history.ReadArgs{Session: sel, ReadQuery: history.ReadQuery{Seq: e.Seq, Offset: off}}, nil)
			if err != nil {
				t.Fatalf("read seq %d: %v", e.Seq, err)
			}
			b.WriteString(r.Body)
			b.WriteByte('\n')
			if r.End >= r.Total || r.End <= off {
				break
			}
			off = r.End
		}
	}
	return b.String()
}

// TestHistoryMasksSecretsUnlessAsked plants secrets in a real Claude Code
// transcript (a prompt and a tool's input) and reads the whole session back
// through the service: masked by default, found by no search, and shown
// verbatim only with Caller.ShowSecrets.
func TestHistoryMasksSecretsUnlessAsked(t *testing.T) {
	root := t.TempDir()
	data, err := os.ReadFile(filepath.Join(repoRoot(), claudeToolsSample))
	if err != nil {
		t.Fatal(err)
	}
	token := "ghp_" + strings.Repeat("Zx9Q", 9)
	awsID := "AKIA" + "ABCDEFGHIJKLMNOP"
	text := strings.Replace(string(data), "Print a greeting", "Print "+token+" greeting", -1)
	text = strings.ReplaceAll(text, "notes.txt", "notes-"+awsID+".txt")
	if text == string(data) {
		t.Fatal("sample changed; the test's replacements no longer apply")
	}
	dst := filepath.Join(root, "-tmp-work", "0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newService(t, map[string]string{"claude": root})
	const sel = "claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001"

	masked := readAll(t, s, service.Caller{}, sel)
	for _, secret := range []string{token, awsID} {
		if strings.Contains(masked, secret) {
			t.Errorf("default history output shows %q", secret)
		}
	}
	for _, want := range []string{"ghp_Zx9Q[REDACTED github token]", "AKIAABCD[REDACTED aws access key id]"} {
		if !strings.Contains(masked, want) {
			t.Errorf("default output lacks the masked form %q:\n%s", want, masked)
		}
	}
	page, _, err := s.HistoryList(context.Background(), service.Caller{}, history.ListArgs{Session: sel, ListQuery: history.ListQuery{Query: token}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 0 {
		t.Errorf("a search for the secret found %d entries; masked text must not be searchable", len(page.Entries))
	}

	ss, err := s.Sessions(context.Background(), history.SessionQuery{Harness: "claude"})
	if err != nil || len(ss) != 1 {
		t.Fatalf("sessions = %v, %v", ss, err)
	}
	if strings.Contains(ss[0].Title, token) || !strings.Contains(ss[0].Title, "[REDACTED github token]") {
		t.Errorf("session title not masked: %q", ss[0].Title)
	}

	shown := readAll(t, s, service.Caller{ShowSecrets: true}, sel)
	for _, secret := range []string{token, awsID} {
		if !strings.Contains(shown, secret) {
			t.Errorf("show_secrets output lacks %q", secret)
		}
	}
	if strings.Contains(shown, "[REDACTED") {
		t.Errorf("show_secrets output is still masked")
	}
}
