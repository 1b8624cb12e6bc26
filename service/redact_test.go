package service_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
	histsearch "github.com/notesoup/notesoup/shared/history/search"
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

// leak returns the first 8 bytes of secret's hidden part (what follows its
// format marker and the characters redact keeps) that out shows, or "".
// Any 8 of them is a fragment no reader should get; fewer cannot be told
// from chance.
func leak(out, secret string) string {
	hidden := secret[8:] // "ghp_" and the 4 kept characters
	for i := 0; i+8 <= len(hidden); i++ {
		if strings.Contains(out, hidden[i:i+8]) {
			return hidden[i : i+8]
		}
	}
	return ""
}

// Two GitHub tokens with no repeated 8-byte run, so leak's check is exact.
const (
	edgeToken  = "ghp_Zx9QwErTyUiOpAsDfGhJkLzXcVbNm1234567"
	edgeToken2 = "ghp_Mn8PqRsTuVwXyZaBcDeFgHiJkLmNoP765432"
)

// edgeSession writes the Claude tools sample with its first prompt made
// "Print <85 bytes> edgeToken <20 bytes> greeting <75 bytes> edgeToken2":
// the title's 120-rune clip falls inside edgeToken, a snippet around
// "greeting" starts inside edgeToken (50 runes of lead) and ends inside
// edgeToken2 (160 runes). It returns the root and the session selector.
func edgeSession(t *testing.T) (string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(), claudeToolsSample))
	if err != nil {
		t.Fatal(err)
	}
	pad := func(n int) string { return strings.Repeat("w", n) }
	prompt := "Print " + pad(84) + " " + edgeToken + " " + pad(20) + " greeting " + pad(74) + " " + edgeToken2
	text := strings.ReplaceAll(string(data), "Print a greeting", prompt)
	if text == string(data) {
		t.Fatal("sample changed; the test's replacement no longer applies")
	}
	root := t.TempDir()
	dst := filepath.Join(root, "-tmp-work", "0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, "claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001"
}

// TestMaskBeforeCutting: every output path masks a transcript's secrets
// before it cuts anything (history.Visible*, the one point). A title
// clipped inside a token, snippets whose edges fall inside tokens, a
// search for a token's own text and the answer cache on disk must show no
// part of a token beyond what redact keeps.
func TestMaskBeforeCutting(t *testing.T) {
	root, sel := edgeSession(t)
	s := newService(t, map[string]string{"claude": root})
	ctx := context.Background()
	cache := t.TempDir()
	search := func(q string) string {
		res, err := s.Search(ctx, q, service.SearchOptions{CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, sh := range res.Sessions {
			fmt.Fprintf(&b, "%d %s %s\n", sh.Count, sh.Session.Title, sh.Session.ID)
			for _, e := range sh.Entries {
				b.WriteString(e.Snippet + "\n")
			}
		}
		return b.String()
	}
	cases := []struct {
		name string
		out  func() string
		// want is text the output must hold (what shows the path ran).
		want string
	}{
		{"title clipped inside a token", func() string {
			ss, err := s.Sessions(ctx, history.SessionQuery{Harness: "claude"})
			if err != nil || len(ss) != 1 {
				t.Fatalf("sessions = %v, %v", ss, err)
			}
			return ss[0].Title
		}, "ghp_Zx9Q[REDACTED"},
		{"sessions query for a token", func() string {
			ss, _ := s.Sessions(ctx, history.SessionQuery{Query: edgeToken[9:20]})
			return fmt.Sprint(ss)
		}, "[]"},
		{"search snippet edges inside tokens", func() string { return search("greeting") }, "greeting"},
		{"search for the token's text finds nothing", func() string { return search(edgeToken[12:32]) }, ""},
		{"search for the whole token finds nothing", func() string { return search(edgeToken2) }, ""},
		{"history_list query for the token", func() string {
			page, _, err := s.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: sel, ListQuery: history.ListQuery{Query: edgeToken[12:32]}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(len(page.Entries), page.Entries)
		}, "0"},
		{"answer cache on disk", func() string {
			var b strings.Builder // every file under it: the index is a folder
			filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					data, _ := os.ReadFile(p)
					b.Write(data)
				}
				return err
			})
			b.Write(histsearch.StoredText(cache)) // the index's blocks, inflated
			return b.String()
		}, "REDACTED github token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.out()
			for _, secret := range []string{edgeToken, edgeToken2} {
				if l := leak(out, secret); l != "" {
					t.Errorf("shows %q of %s:\n%s", l, secret[:8], out)
				}
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("lacks %q:\n%s", tc.want, out)
			}
		})
	}
}
