//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// streamSession is a claude -p --input-format stream-json session with its
// input held open, so a person-like sequence of messages (a /clear, then a
// prompt) reaches one process.
type streamSession struct {
	t      *testing.T
	r      *run
	cmd    *exec.Cmd
	stdin  interface{ Write([]byte) (int, error) }
	close  func() error
	stdout *syncBuffer
	stderr *bytes.Buffer
}

// startStream starts the session in a fresh workspace playing script.
func startStream(t *testing.T, script string, env ...string) *streamSession {
	t.Helper()
	ws, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, script)
	bin, err := modelserver.CLIPath(repoRoot(t), modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	t.Cleanup(cancel)
	cmd, err := ws.Command(ctx, modelserver.Claude, bin, srv.URL(), modelserver.AgentOptions{
		Env: append([]string{"NOTESOUP_HOME=" + filepath.Join(ws.Dir, "notesoup")}, env...)},
		"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--plugin-dir", pluginDir(t), "--debug-file", filepath.Join(ws.Dir, "debug.txt"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &streamSession{t: t, r: &run{ws: ws, srv: srv}, cmd: cmd, stdin: in, close: in.Close, stdout: &syncBuffer{}, stderr: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

// send writes one user message.
func (s *streamSession) send(text string) {
	s.t.Helper()
	msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	if _, err := s.stdin.Write(append(msg, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// results counts the result lines so far (one per finished input or queued command).
func (s *streamSession) results() int { return count(s.stdout.String(), `"type":"result"`) }

// waitResults waits, bounded generously, until n results are out.
func (s *streamSession) waitResults(n int) {
	deadline := time.Now().Add(runTimeout - 30*time.Second)
	for time.Now().Before(deadline) && s.results() < n {
		time.Sleep(200 * time.Millisecond)
	}
}

// finish closes the input and waits for the process.
func (s *streamSession) finish() {
	s.t.Helper()
	s.close()
	if err := s.cmd.Wait(); err != nil {
		s.t.Fatalf("claude: %v\nstderr: %s", err, s.stderr.String())
	}
	if s.t.Failed() {
		dumpDebug(s.t, s.r.ws)
	}
}

// TestStreamJSONClearThenReset: after /clear, in the same process, a tool
// reset commits and is followed by one continuation in the new window.
func TestStreamJSONClearThenReset(t *testing.T) {
	s := startStream(t, noteAndReset(`{"last_word":"`+lastWord+`"}`, `,{"text":"Fresh window, continuing."}`))
	s.send("/clear")
	s.waitResults(1)
	s.send("Save a note and reset. " + oldPromptText)
	// The prompt's turn, then the continuation's.
	deadline := time.Now().Add(runTimeout - 30*time.Second)
	for time.Now().Before(deadline) && len(s.r.bodies()) < 3 {
		time.Sleep(200 * time.Millisecond)
	}
	// A second continuation or a summarizer request would follow within seconds.
	time.Sleep(3 * time.Second)
	s.finish()
	b := s.r.bodies()
	if len(b) != 3 {
		t.Fatalf("%d model requests, want 3 (note, reset, one continuation after the commit)", len(b))
	}
	for _, want := range []string{bootOpen, noteSecret, lastWord, "## Handoff"} {
		if !strings.Contains(b[2], want) {
			t.Errorf("fresh-window request lacks %q", want)
		}
	}
	if strings.Contains(b[2], oldPromptText) {
		t.Errorf("fresh-window request still holds the old prompt")
	}
}

// TestStreamJSONClearKeepsCompactDisabled: with DISABLE_COMPACT, empty_brain
// is refused after /clear as before it: the model gets the refusal (naming
// commands that exist) and its turn goes on; nothing is cut off.
func TestStreamJSONClearKeepsCompactDisabled(t *testing.T) {
	script := `{"name":"nocompact","turns":[
 {"text":"Resetting.","tool_calls":[{"name":"mcp__notesoup__empty_brain","input":{}}]},
 {"text":"Carrying on without a reset."}]}`
	s := startStream(t, script, "DISABLE_COMPACT=1")
	s.send("/clear")
	s.waitResults(1)
	s.send("Reset please. " + oldPromptText)
	s.waitResults(2)
	s.finish()
	b := s.r.bodies()
	if len(b) != 2 {
		t.Fatalf("%d model requests, want 2 (the refused call's result goes back to the model)", len(b))
	}
	i := strings.LastIndex(b[1], "tool_result")
	if i < 0 || !strings.Contains(b[1][i:], "DISABLE_COMPACT") {
		t.Fatalf("the second request does not carry the refusal: %.800s", b[1][max(i, 0):])
	}
	if !strings.Contains(b[1][i:], "/notesoup:empty or /notesoup:fresh-window") {
		t.Errorf("the refusal does not name the commands that exist: %.800s", b[1][i:])
	}
}

// TestWarningOnBashResult: a model working only with Bash is warned once,
// on the result of the call whose response crossed the warning point.
func TestWarningOnBashResult(t *testing.T) {
	u := fmt.Sprintf(`{"input_tokens":%d,"output_tokens":10}`, usagePastWarning)
	script := `{"name":"bash-warning","turns":[
 {"text":"Looking.","tool_calls":[{"name":"Bash","input":{"command":"echo one","description":"one"}}],"usage":` + u + `},
 {"text":"Looking again.","tool_calls":[{"name":"Read","input":{"file_path":"README.md"}}],"usage":` + u + `},
 {"text":"Done.","usage":` + u + `}]}`
	r := start(t, script, "Look around. "+oldPromptText)
	b := r.bodies()
	if len(b) != 3 {
		t.Fatalf("%d model requests, want 3", len(b))
	}
	if n := count(b[0], warningTail); n != 0 {
		t.Errorf("the first request holds the warning %d times, want 0", n)
	}
	if n := count(b[1], warningTail); n != 1 {
		t.Errorf("the request after the Bash result holds the warning %d times, want 1", n)
	}
	if n := count(b[2], warningTail); n != 1 {
		t.Errorf("the last request holds the warning %d times, want exactly 1 (no second warning in the window)", n)
	}
}

// TestDisabledStaticCommand: with NOTESOUP_DISABLED the plugin's static
// commands are still listed; /notesoup:empty says notesoup is disabled and
// sends the model nothing.
func TestDisabledStaticCommand(t *testing.T) {
	ws, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, `{"name":"none","turns":[]}`)
	out := claude(t, ws, srv, []string{"NOTESOUP_DISABLED=1"}, "-p", "/notesoup:empty")
	r := &run{ws: ws, srv: srv}
	if n := len(r.bodies()); n != 0 {
		t.Errorf("%d model requests, want 0 (an empty prompt went to the model)", n)
	}
	if res := finalResult(out); !strings.Contains(res, "notesoup is disabled") {
		t.Errorf("final result %q does not say notesoup is disabled", res)
	}
}

// finalResult is the text of a -p run's last result line.
func finalResult(out []map[string]any) string {
	res := ""
	for _, l := range out {
		if l["type"] == "result" {
			res = fmt.Sprint(l["result"])
		}
	}
	return res
}

// TestInteractiveClearThenReset: in a real PTY, /clear and then a tool
// reset: the reset commits and one continuation follows it.
func TestInteractiveClearThenReset(t *testing.T) {
	p := startPTY(t, noteAndReset(`{"last_word":"`+lastWord+`"}`, `,{"text":"Fresh window, continuing."}`))
	// Taken once the typed line is gone: /clear wipes the conversation view.
	p.typeLine("/clear", func() bool { return !strings.Contains(p.pane(), "/clear") })
	// /clear makes no model request; give the engine a moment to rebind.
	time.Sleep(2 * time.Second)
	p.waitFor("the prompt after /clear", 30*time.Second, func() bool { return strings.Contains(p.pane(), "bypass permissions on") })
	p.typeLine("Save a note and reset. "+oldPromptText, func() bool { return len(p.r.bodies()) > 0 })
	p.waitFor("the fresh-window request", 90*time.Second, func() bool { return len(p.r.bodies()) >= 3 })
	time.Sleep(3 * time.Second)
	b := p.r.bodies()
	if len(b) != 3 {
		dumpDebug(t, p.r.ws)
		t.Fatalf("%d model requests, want 3; screen:\n%s", len(b), p.pane())
	}
	for _, want := range []string{bootOpen, noteSecret, lastWord, "## Handoff"} {
		if !strings.Contains(b[2], want) {
			t.Errorf("fresh-window request lacks %q", want)
		}
	}
	if strings.Contains(b[2], oldPromptText) {
		t.Errorf("fresh-window request still holds the old prompt")
	}
}

// pty is an interactive claude in a tmux session.
type pty struct {
	t    *testing.T
	r    *run
	name string
}

// startPTY runs claude interactively (tmux, 200×50) with the plugin and the
// first-run screens answered, and waits for its prompt.
func startPTY(t *testing.T, script string) *pty {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is required for the interactive test (apt-get install tmux)")
	}
	dir, err := os.MkdirTemp("", "notesoup-claude-pty-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20; i++ {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Logf("could not remove %s", dir)
	})
	ws, err := modelserver.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, script)
	bin, err := modelserver.CLIPath(repoRoot(t), modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	plugin := copyPlugin(t, filepath.Join(ws.Dir, "plugin"))
	cfg, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark", "bypassPermissionsModeAccepted": true,
		"customApiKeyResponses": map[string]any{"approved": []string{"sk-fake"}, "rejected": []string{}},
		"projects":              map[string]any{ws.Work: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	})
	if err := os.WriteFile(filepath.Join(ws.Home, ".claude.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, err := ws.Command(t.Context(), modelserver.Claude, bin, srv.URL(), modelserver.AgentOptions{
		Env: []string{"NOTESOUP_HOME=" + filepath.Join(ws.Dir, "notesoup"), "TERM=xterm-256color"}},
		"--plugin-dir", plugin, "--dangerously-skip-permissions", "--debug-file", filepath.Join(ws.Dir, "debug.txt"))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("notesoup-claude-e2e-%d", os.Getpid())
	args := []string{"new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", ws.Work, "env", "-i"}
	args = append(append(args, cmd.Env...), cmd.Args...)
	exec.Command("tmux", "kill-session", "-t", name).Run()
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", name).Run() })
	p := &pty{t: t, r: &run{ws: ws, srv: srv}, name: name}
	p.waitFor("the prompt", 60*time.Second, func() bool { return strings.Contains(p.pane(), "bypass permissions on") })
	return p
}

func (p *pty) pane() string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", p.name).Output()
	return string(out)
}

func (p *pty) waitFor(what string, limit time.Duration, ok func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			dumpDebug(p.t, p.r.ws)
			p.t.Fatalf("timed out waiting for %s; screen:\n%s", what, p.pane())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// typeLine types text and presses Enter until taken says the line was
// taken: the terminal may read the typed text as a paste and swallow an
// Enter that arrives with it.
func (p *pty) typeLine(text string, taken func() bool) {
	p.t.Helper()
	exec.Command("tmux", "send-keys", "-t", p.name, "-l", text).Run()
	for i := 0; i < 5; i++ {
		time.Sleep(time.Second)
		exec.Command("tmux", "send-keys", "-t", p.name, "Enter").Run()
		for j := 0; j < 20; j++ {
			if taken() {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
}
