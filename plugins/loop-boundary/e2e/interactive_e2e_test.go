//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// interactiveTimeout bounds the whole terminal session; it needs no wakeup.
const interactiveTimeout = 3 * time.Minute

// interactiveSessionID is fixed so the ledger's file name is known.
const interactiveSessionID = "3c0c7e55-2d4a-4c1e-8f00-00000000000c"

// nextPrompt is what the test types at the prompt after the boundary.
const nextPrompt = "next iteration please"

// interactiveScript: the /loop turn ends with an outcome line (the boundary);
// the typed prompt after it is answered without one.
const interactiveScript = `{
  "name": "loop-boundary-interactive",
  "usage": {"input_tokens": 5000, "output_tokens": 20},
  "turns": [
    {"text": "Iteration 1 merged the fix for BF-1.\nSHIPPED-MERGE: BF-1", "usage": {"input_tokens": 72791}},
    {"text": "Looking at the next candidate.", "usage": {"input_tokens": 45813}}
  ]
}`

// shellQuote quotes s for the POSIX shell `script -c` runs the command with.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// processesIn lists the processes whose working directory is dir or below.
func processesIn(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stopProcessesIn waits for the processes working in dir to exit, and kills
// the ones still there after within: only this test starts processes there.
func stopProcessesIn(t *testing.T, dir string, within time.Duration) {
	t.Helper()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	deadline := time.Now().Add(within)
	for len(processesIn(dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
	}
	for _, pid := range processesIn(dir) {
		t.Logf("killing process %d still working in %s", pid, dir)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for i := 0; i < 20 && len(processesIn(dir)) > 0; i++ {
		time.Sleep(250 * time.Millisecond)
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestLoopBoundaryInteractive runs claude in a terminal (util-linux script
// gives it a pty), where $.session.compact() is accepted from turn.complete:
// the mod's own session.compact hook answers the `plugin` compaction, and the
// next typed prompt is sent with only the boundary message before it.
func TestLoopBoundaryInteractive(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("the util-linux `script` command gives claude a terminal; install util-linux: %v", err)
	}
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := modelserver.CLIPath(repo, modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, err := filepath.EvalSymlinks(w.Work)
	if err != nil {
		t.Fatal(err)
	}
	// First-run dialogs (onboarding, the API key, workspace trust) would wait
	// for a person: answer them ahead in ~/.claude.json.
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{"sk-fake"}, "rejected": []string{}},
		"projects":               map[string]any{work: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	}
	raw, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, ".claude.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := modelserver.ParseScript([]byte(interactiveScript), nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(w.Dir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(logs, "requests.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), interactiveTimeout)
	defer cancel()
	debug := filepath.Join(logs, "debug.txt")
	args := []string{"--session-id", interactiveSessionID, "--plugin-dir", filepath.Join(repo, "plugins", "loop-boundary"), "--debug-file", debug, "/loop /auto"}
	base, err := w.Command(ctx, modelserver.Claude, bin, srv.URL(), modelserver.AgentOptions{Env: []string{"TERM=xterm-256color"}}, args...)
	if err != nil {
		t.Fatal(err)
	}
	line := shellQuote(bin)
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	cmd := exec.CommandContext(ctx, scriptBin, "-qfec", line, "/dev/null")
	cmd.Env, cmd.Dir = base.Env, base.Dir
	// Own process group, so the terminal session and claude under it end together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	tty, err := os.Create(filepath.Join(logs, "tty.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	cmd.Stdout, cmd.Stderr = tty, tty
	keys, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// script runs claude in a session of its own, so ending script's group
	// does not end claude: stop script, then wait for every process working in
	// the workspace to go (ending what lingers), before the temp dir is removed.
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
		stopProcessesIn(t, w.Dir, 20*time.Second)
	}()

	ledger := filepath.Join(work, "tmp", "loop-boundary-"+interactiveSessionID+".jsonl")
	count := func() int {
		raw, err := os.ReadFile(ledger)
		if err != nil {
			return 0
		}
		return strings.Count(strings.TrimSpace(string(raw)), "\n") + 1
	}
	waitFor(t, "the boundary row", 90*time.Second, func() bool { return count() >= 1 })
	// Let the compacted view settle before typing, then type the next prompt
	// and press Enter separately (a CR inside a fast burst reads as a paste).
	time.Sleep(2 * time.Second)
	if _, err := keys.Write([]byte(nextPrompt)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if _, err := keys.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the typed turn's pass row", 60*time.Second, func() bool { return count() >= 2 })

	rows, lines := readLedger(t, ledger)
	want := []map[string]any{
		{"event": "boundary", "accepted": true, "outcome": "SHIPPED-MERGE: BF-1", "tokensBefore": 72791.0, "tokensAfter": 45813.0, "path": "turn-complete", "nearClear": true, "loopPrompt": "/auto"},
		{"event": "pass", "reason": "no-outcome", "loopPrompt": "/auto"},
	}
	if len(rows) != len(want) {
		t.Fatalf("ledger has %d rows, want %d:\n%s", len(rows), len(want), strings.Join(lines, "\n"))
	}
	for i, row := range rows {
		for k, v := range want[i] {
			if !reflect.DeepEqual(row[k], v) {
				t.Errorf("row %d: %s = %v, want %v", i, k, row[k], v)
			}
		}
	}
	reqs := srv.ModelRequests(modelserver.Anthropic)
	var answers []string
	for _, r := range reqs {
		answers = append(answers, r.Answer)
	}
	if !reflect.DeepEqual(answers, []string{"turn 0", "turn 1"}) {
		t.Fatalf("requests answered by %q, want turn 0 and turn 1 (no summarizer request)", answers)
	}
	checkNearClear(t, "typed prompt after the boundary", reqs[1].Body, "SHIPPED-MERGE: BF-1", "3c0c7e55",
		filepath.Join(work, "tmp", "auto-state-3c0c7e55.json"), nextPrompt, []string{"Iteration 1 merged", "/loop /auto"})
	// The terminal route is $.session.compact() itself: the engine stamps the
	// compaction `plugin` and reports the hook's message standing alone.
	text, err := os.ReadFile(debug)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "session.compact (plugin): a hook's 1 messages stand") {
		t.Errorf("debug log %s lacks the plugin compaction answered by the hook", debug)
	}
}
