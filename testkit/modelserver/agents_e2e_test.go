//go:build e2e

// Real-CLI tests: run with `go test -tags e2e ./testkit/modelserver/` after
// e2e/install.sh. They start each pinned agent CLI against the server, in an
// isolated workspace, and check what it sent and what it wrote.

package modelserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// e2eTimeout bounds one CLI run; a scripted run takes seconds, and agents
// retry a broken server for minutes, so a hang shows up as this timeout.
const e2eTimeout = 3 * time.Minute

func TestRealAgentsToolRoundTrip(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		h      Harness
		script string
		args   func(w *Workspace) []string
		// wantResult is text the tool results must have carried back to
		// the model (the file's content or a command's output).
		wantResult string
	}{
		{Claude, "claude-tools.json", func(w *Workspace) []string {
			return []string{"-p", "Print a greeting, then list the directory and read notes.txt", "--output-format", "stream-json", "--verbose",
				"--dangerously-skip-permissions", "--tools", "Bash,Read,Write", "--system-prompt", "You are a coding agent under test."}
		}, "hello from notesoup"},
		{Pi, "pi-tools.json", func(w *Workspace) []string {
			return []string{"-p", "-nc", "--provider", "fake", "--model", DefaultModel, "Read notes.txt, print a greeting and list the directory"}
		}, "buy milk"},
		{Codex, "codex-tools.json", func(w *Workspace) []string {
			return []string{"exec", "--skip-git-repo-check", "-C", w.Work, "Print a greeting, read notes.txt and list the directory"}
		}, "hello from notesoup"},
	}
	for _, tc := range tests {
		t.Run(string(tc.h), func(t *testing.T) {
			bin, err := CLIPath(repo, tc.h)
			if err != nil {
				t.Fatal(err)
			}
			w, err := NewWorkspace(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(w.Work, "notes.txt"), []byte("buy milk\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			sc, err := LoadScript(filepath.Join(repo, "e2e", "scenarios", tc.script), map[string]string{"WORK": w.Work})
			if err != nil {
				t.Fatal(err)
			}
			srv, err := Start(Config{Script: sc, LogPath: filepath.Join(w.Dir, "requests.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
			defer cancel()
			cmd, err := w.Command(ctx, tc.h, bin, srv.URL(), AgentOptions{}, tc.args(w)...)
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.h, err, stderr.String())
			}
			if p := srv.Problems(); len(p) > 0 {
				t.Fatalf("off-script requests: %q", p)
			}
			if srv.TurnsUsed() != len(sc.Turns) {
				t.Fatalf("used %d of %d turns", srv.TurnsUsed(), len(sc.Turns))
			}
			reqs := srv.ModelRequests(protocolOf(tc.h))
			if len(reqs) < len(sc.Turns) {
				t.Fatalf("%d model requests, want at least %d", len(reqs), len(sc.Turns))
			}
			// After the first reply (a tool call) the next request must end
			// with the tool's result, and that result must be real.
			if !reqs[1].LastIsToolResult {
				t.Fatalf("second request does not end with a tool result: %s", clip(string(reqs[1].Body), 300))
			}
			msgs, err := reqs[len(reqs)-1].Messages()
			if err != nil {
				t.Fatal(err)
			}
			var sawResult, sawCall bool
			for _, m := range msgs {
				sawResult = sawResult || (m.Role == "tool" && strings.Contains(m.Text, tc.wantResult))
				sawCall = sawCall || (m.Role == "assistant" && strings.HasPrefix(m.Text, "call "))
			}
			if !sawResult || !sawCall {
				t.Fatalf("final request: tool call seen %v, tool output %q seen %v; messages %q", sawCall, tc.wantResult, sawResult, msgs)
			}
			files, err := w.SessionFiles(tc.h)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 1 {
				t.Fatalf("session files %q, want exactly one", files)
			}
			raw, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			lastText := sc.Turns[len(sc.Turns)-1].Text
			if !strings.Contains(string(raw), lastText) {
				t.Fatalf("session file lacks the final answer %q", lastText)
			}
		})
	}
}

func protocolOf(h Harness) Protocol {
	switch h {
	case Claude:
		return Anthropic
	case Pi:
		return Chat
	default:
		return Responses
	}
}
