//go:build !light

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryCLIHumanOutputIsSafe: transcript text reaching a person's
// terminal has its escape sequences made inert and its secrets masked,
// unless --show-secrets asks for them.
func TestHistoryCLIHumanOutputIsSafe(t *testing.T) {
	const (
		sid    = "22222222-2222-4222-8222-222222222222"
		secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
	)
	root := t.TempDir()
	dir := filepath.Join(root, "-work-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u1","timestamp":"2026-03-01T10:00:01.000Z","sessionId":"` + sid +
		`","cwd":"/work/proj","version":"2.1.332","message":{"role":"user","content":"token ` + secret + ` then \u001b[2J\u001b]0;pwned\u0007 done"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		want, lack []string
	}{
		{"list masks and neutralises", []string{"history", "list", "--query", "token"}, []string{"[REDACTED github token]"}, []string{"\x1b", "\x07", secret}},
		{"read masks and neutralises", []string{"history", "read", "--seq", "1"}, []string{`\e]0;pwned`}, []string{"\x1b", "\x07", secret}},
		{"show-secrets shows the key, still no raw escape", []string{"history", "read", "--seq", "1", "--show-secrets"}, []string{secret}, []string{"\x1b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, append(tc.args, "--claude-root", root, "--session", "claude:"+sid)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, l := range tc.lack {
				if strings.Contains(out, l) {
					t.Errorf("output carries %q:\n%q", l, out)
				}
			}
		})
	}
}
