//go:build e2e

package modelserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealGeminiToolRoundTrip runs the pinned Gemini CLI headless (-p,
// --yolo so its shell tool runs unasked) against the scripted Gemini API in
// an isolated HOME and GEMINI_CLI_HOME: a read_file call, then a shell
// command and a directory listing in parallel, then the answer. The tool
// results must travel back to the model and the chat file must hold the
// turn.
func TestRealGeminiToolRoundTrip(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := CLIPath(repo, GeminiCLI)
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
	sc, err := LoadScript(filepath.Join(repo, "e2e", "scenarios", "gemini-tools.json"), nil)
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
	cmd, err := w.Command(ctx, GeminiCLI, bin, srv.URL(), AgentOptions{},
		"-p", "Read notes.txt, print a greeting and list the directory", "-m", GeminiModel, "--yolo", "--output-format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\n%s", err, stderr.String())
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("off-script requests: %q", p)
	}
	if srv.TurnsUsed() != len(sc.Turns) {
		t.Fatalf("used %d of %d turns", srv.TurnsUsed(), len(sc.Turns))
	}
	lastText := sc.Turns[len(sc.Turns)-1].Text
	var answer struct {
		SessionID string `json:"session_id"`
		Response  string `json:"response"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil || answer.Response != lastText {
		t.Fatalf("--output-format json answer %q (%v), want response %q", stdout.String(), err, lastText)
	}
	reqs := srv.ModelRequests(Gemini)
	if len(reqs) != len(sc.Turns) {
		t.Fatalf("%d model requests, want %d", len(reqs), len(sc.Turns))
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
	var calls []string
	results := ""
	for _, m := range msgs {
		switch {
		case m.Role == "assistant" && strings.HasPrefix(m.Text, "call "):
			calls = append(calls, strings.Fields(m.Text)[1])
		case m.Role == "tool":
			results += m.Text + "\n"
		}
	}
	if strings.Join(calls, ",") != "read_file,run_shell_command,list_directory" {
		t.Fatalf("calls sent back %q, want read_file, run_shell_command, list_directory", calls)
	}
	for _, want := range []string{"buy milk", "hello from notesoup", "notes.txt"} {
		if !strings.Contains(results, want) {
			t.Fatalf("tool results sent back lack %q: %s", want, results)
		}
	}
	files, err := w.SessionFiles(GeminiCLI)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !strings.HasPrefix(filepath.Base(files[0]), "session-") || !strings.Contains(files[0], answer.SessionID[:8]) {
		t.Fatalf("session files %q, want one session-*-%s.jsonl", files, answer.SessionID[:8])
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), lastText) || !strings.Contains(string(raw), `"sessionId":"`+answer.SessionID+`"`) {
		t.Fatalf("chat file lacks the final answer or the session id:\n%s", clip(string(raw), 600))
	}
}
