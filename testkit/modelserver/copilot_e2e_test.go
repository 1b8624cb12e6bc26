//go:build e2e

package modelserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copilotSessionID is the session id the test gives the Copilot CLI
// (--session-id), so it knows which folder the session must land in.
const copilotSessionID = "0c0c0c0c-0000-4000-8000-0000000000e2"

// TestRealCopilotToolRoundTrip runs the pinned GitHub Copilot CLI headless
// (-p, --allow-all so its shell runs unasked) against the scripted
// chat-completions server through its bring-your-own-key provider, offline
// (no GitHub sign-in), in an isolated HOME and COPILOT_HOME: a view call,
// then a shell command and a glob in parallel, then the answer. The tool
// results must travel back to the model, and the session's events.jsonl
// and workspace.yaml must hold the turn and the working directory.
func TestRealCopilotToolRoundTrip(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := CLIPath(repo, Copilot)
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
	sc, err := LoadScript(filepath.Join(repo, "e2e", "scenarios", "copilot-tools.json"), map[string]string{"WORK": w.Work})
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
	cmd, err := w.Command(ctx, Copilot, bin, srv.URL(), AgentOptions{},
		"-p", "Read notes.txt, print a greeting and list the directory", "--allow-all", "--no-auto-update",
		"--session-id", copilotSessionID)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("copilot: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("off-script requests: %q", p)
	}
	if srv.TurnsUsed() != len(sc.Turns) {
		t.Fatalf("used %d of %d turns", srv.TurnsUsed(), len(sc.Turns))
	}
	lastText := sc.Turns[len(sc.Turns)-1].Text
	if !strings.Contains(stdout.String(), lastText) {
		t.Fatalf("stdout lacks the final answer %q:\n%s", lastText, stdout.String())
	}
	reqs := srv.ModelRequests(Chat)
	if len(reqs) != len(sc.Turns) {
		t.Fatalf("%d chat requests, want %d", len(reqs), len(sc.Turns))
	}
	for i, r := range reqs[1:] {
		if !r.LastIsToolResult {
			t.Fatalf("request %d does not end with a tool result: %s", i+2, clip(string(r.Body), 300))
		}
	}
	msgs, err := reqs[len(reqs)-1].Messages()
	if err != nil {
		t.Fatal(err)
	}
	results := ""
	for _, m := range msgs {
		if m.Role == "tool" {
			results += m.Text + "\n"
		}
	}
	for _, want := range []string{"buy milk", "hello from notesoup", "notes.txt"} {
		if !strings.Contains(results, want) {
			t.Fatalf("tool results sent back lack %q: %s", want, results)
		}
	}
	files, err := w.SessionFiles(Copilot)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(w.Home, ".copilot", "session-state", copilotSessionID, "events.jsonl")
	if len(files) != 1 || files[0] != want {
		t.Fatalf("session files %q, want %s", files, want)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"type":"session.start"`, `"sessionId":"` + copilotSessionID + `"`,
		`"type":"tool.execution_complete"`, `"toolCallId":"call_fake_0002_0"`, lastText} {
		if !strings.Contains(string(raw), want) {
			t.Fatalf("events.jsonl lacks %s:\n%s", want, clip(string(raw), 600))
		}
	}
	meta, err := os.ReadFile(filepath.Join(filepath.Dir(files[0]), "workspace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(meta), "cwd: "+w.Work+"\n") {
		t.Fatalf("workspace.yaml does not name the working directory %s:\n%s", w.Work, meta)
	}
}
