//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// tmuxSession names the PTY session of the interactive test.
const tmuxSession = "notesoup-claude-e2e"

// copyPlugin copies the built plugin: an interactive session hot-reloads a
// --plugin-dir folder and lays its type declarations into it, which must
// not touch the source tree.
func copyPlugin(t *testing.T, dst string) string {
	t.Helper()
	src := pluginDir(t)
	out, err := exec.Command("sh", "-c", `mkdir -p "$2" && cd "$1" && tar --exclude=node_modules --exclude=.claude-plugin/types -cf - . | tar -xf - -C "$2"`, "sh", src, dst).CombinedOutput()
	if err != nil {
		t.Fatalf("copying the plugin: %v: %s", err, out)
	}
	return dst
}

// TestInteractivePTY: the same reset in an interactive session in a real
// PTY (tmux): one commit, then one fresh-window request with the boot and
// the note, and none of the old conversation.
func TestInteractivePTY(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is required for the interactive test (apt-get install tmux)")
	}
	// Not t.TempDir: claude may still be writing its session files for a
	// moment after tmux kills it, and TempDir's cleanup fails on that.
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
	srv := startServer(t, noteAndReset(`{"last_word":"`+lastWord+`"}`, `,{"text":"Fresh window, continuing."}`))
	bin, err := modelserver.CLIPath(repoRoot(t), modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	plugin := copyPlugin(t, filepath.Join(ws.Dir, "plugin"))
	// First-run screens (onboarding, folder trust, the API key, bypass
	// mode) are answered in the isolated HOME's config, as a user who has
	// run Claude Code before would have them.
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
	// tmux runs the same argv and environment in a PTY.
	args := []string{"new-session", "-d", "-s", tmuxSession, "-x", "200", "-y", "50", "-c", ws.Work, "env", "-i"}
	args = append(append(args, cmd.Env...), cmd.Args...)
	exec.Command("tmux", "kill-session", "-t", tmuxSession).Run()
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", tmuxSession).Run() })
	pane := func() string {
		out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", tmuxSession).Output()
		return string(out)
	}
	waitFor := func(what string, limit time.Duration, ok func() bool) {
		deadline := time.Now().Add(limit)
		for !ok() {
			if time.Now().After(deadline) {
				dumpDebug(t, ws)
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, pane())
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	waitFor("the prompt", 60*time.Second, func() bool { return strings.Contains(pane(), "bypass permissions on") })
	exec.Command("tmux", "send-keys", "-t", tmuxSession, "-l", "Save a note and reset. "+oldPromptText).Run()
	r := &run{ws: ws, srv: srv}
	// The terminal may take the typed text as a paste and swallow an Enter
	// that arrives with it: press Enter again until the first request comes.
	for i := 0; i < 5 && len(r.bodies()) == 0; i++ {
		time.Sleep(time.Second)
		exec.Command("tmux", "send-keys", "-t", tmuxSession, "Enter").Run()
		for j := 0; j < 20 && len(r.bodies()) == 0; j++ {
			time.Sleep(250 * time.Millisecond)
		}
	}
	waitFor("the fresh-window request", 90*time.Second, func() bool { return len(r.bodies()) >= 3 })
	// A second continuation or a summarizer request would come within a
	// few seconds of the first.
	time.Sleep(3 * time.Second)
	b := r.bodies()
	if len(b) != 3 {
		t.Fatalf("%d model requests, want 3", len(b))
	}
	for _, want := range []string{bootOpen, noteSecret, lastWord, "## Handoff"} {
		if !strings.Contains(b[2], want) {
			t.Errorf("fresh-window request lacks %q", want)
		}
	}
	for _, old := range []string{oldPromptText, "Saving a note."} {
		if strings.Contains(b[2], old) {
			t.Errorf("fresh-window request still holds %q", old)
		}
	}
	for i, body := range b {
		if strings.Contains(body, summarizerAsk) {
			t.Errorf("request %d is a compaction summarizer request", i+1)
		}
	}
}
