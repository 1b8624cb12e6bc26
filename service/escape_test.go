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

// TestSelectorsCannotEscape tries selectors and caller bindings that aim
// outside the harnesses' session roots, through the service and the real
// plugins: every one is refused, and no refusal carries the secret text of
// the file aimed at or an unbounded echo of the input.
func TestSelectorsCannotEscape(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	const id = "0b5e8a61-7c1d-4f3e-9a2b-000000000001"
	secret := "OUTSIDE-THE-ROOTS"
	data, err := os.ReadFile(filepath.Join(repoRoot(), claudeToolsSample))
	if err != nil {
		t.Fatal(err)
	}
	// A real transcript outside the roots, with a marker in its prompt.
	evil := filepath.Join(outside, "e0000000-0000-4000-8000-000000000000.jsonl")
	if err := os.WriteFile(evil, []byte(strings.ReplaceAll(string(data), "Print a greeting", secret)), 0o644); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(repoRoot(), claudeToolsSample), filepath.Join(root, "-tmp-work", id+".jsonl"))
	// Links planted inside the roots: a transcript link and a project
	// folder link, both pointing out.
	if err := os.Symlink(evil, filepath.Join(root, "-tmp-work", "e0000000-0000-4000-8000-00000000000a.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "-tmp-linked")); err != nil {
		t.Fatal(err)
	}
	s := newService(t, map[string]string{"claude": root})
	ctx := context.Background()
	long := strings.Repeat("a", 1<<20)

	tests := []struct {
		name   string
		caller service.Caller
		sel    string
	}{
		{"dot-dot", service.Caller{}, "../../etc/passwd"},
		{"absolute path", service.Caller{}, evil},
		{"harness and path", service.Caller{}, "claude:" + evil},
		{"harness and dot-dot", service.Caller{}, "claude:../" + id},
		{"home path", service.Caller{}, "~/.claude/projects/x.jsonl"},
		{"backslash", service.Caller{}, `claude:..\..\x`},
		{"NUL", service.Caller{}, "claude:" + id[:8] + "\x00"},
		{"NUL alone", service.Caller{}, "\x00"},
		{"escape sequence", service.Caller{}, "claude:\x1b[2J\x1b]0;pwned\x07"},
		{"newline", service.Caller{}, "claude:" + id[:8] + "\nclaude:latest"},
		{"very long", service.Caller{}, long},
		{"jsonl suffix", service.Caller{}, id + ".jsonl"},
		{"symlinked transcript by id", service.Caller{}, "claude:e0000000-0000-4000-8000-00000000000a"},
		{"transcript outside the roots", service.Caller{Harness: "claude", Transcript: evil}, ""},
		{"transcript through a symlink", service.Caller{Harness: "claude", Transcript: filepath.Join(root, "-tmp-work", "e0000000-0000-4000-8000-00000000000a.jsonl")}, ""},
		{"transcript dot-dot", service.Caller{Harness: "claude", Transcript: filepath.Join(root, "..", filepath.Base(outside), filepath.Base(evil))}, ""},
		{"transcript via linked folder", service.Caller{Harness: "claude", Transcript: filepath.Join(root, "-tmp-linked", filepath.Base(evil))}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page, sess, err := s.HistoryList(ctx, tc.caller, history.ListArgs{Session: tc.sel, ListQuery: history.ListQuery{Query: secret}}, nil)
			if err == nil {
				t.Fatalf("resolved to %s (%d entries); want a refusal", sess.Path, len(page.Entries))
			}
			msg := err.Error()
			if strings.Contains(msg, secret) {
				t.Errorf("refusal leaks the outside file's text: %q", msg)
			}
			if len(msg) > 4096 {
				t.Errorf("refusal is %d bytes long; it echoes unbounded input", len(msg))
			}
			if strings.ContainsAny(msg, "\x00\x1b\x07") {
				t.Errorf("refusal carries raw control characters: %q", msg)
			}
		})
	}
}

// TestSymlinkedTranscriptsStayOut plants, inside each harness's roots, a
// symlink to a real transcript kept outside them (same name, consistent
// ids): it must be neither listed nor readable.
func TestSymlinkedTranscriptsStayOut(t *testing.T) {
	for _, hz := range []string{"claude", "pi", "codex"} {
		t.Run(hz, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			src := filepath.Join(repoRoot(), hugeSamples[hz])
			name := filepath.Base(src)
			copyFile(t, src, filepath.Join(outside, name))
			dir := map[string]string{ // each harness's own layout under its root
				"claude": filepath.Join(root, "-tmp-linked"),
				"pi":     filepath.Join(root, "--tmp-linked--"),
				"codex":  filepath.Join(root, "2026", "12", "02"),
			}[hz]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			s := newService(t, map[string]string{hz: root})
			ctx := context.Background()
			// Control: a regular copy at the same place is listed, so an
			// unlisted link below is refused, not merely misplaced.
			copyFile(t, src, filepath.Join(dir, name))
			if ss, err := s.Sessions(ctx, history.SessionQuery{Harness: hz}); err != nil || len(ss) != 1 {
				t.Fatalf("control: a regular transcript there lists as %v, %v", ss, err)
			}
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, name), filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			ss, err := s.Sessions(ctx, history.SessionQuery{Harness: hz})
			if err != nil {
				t.Logf("listing: %v", err)
			}
			var problems []string
			for _, x := range ss {
				problems = append(problems, "listed "+x.ID+" titled "+x.Title)
				if _, _, err := s.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: hz + ":" + x.ID}, nil); err == nil {
					problems = append(problems, "read "+x.ID+" in full")
				}
			}
			if len(problems) > 0 {
				t.Errorf("%s follows a link out of its roots: %s", hz, strings.Join(problems, "; "))
			}
		})
	}
}
