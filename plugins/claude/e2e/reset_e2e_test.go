//go:build e2e

// Package e2e runs the notesoup Claude Code mod inside the real, pinned
// claude binary (isolated HOME, fake credentials) against the scripted
// Anthropic server on 127.0.0.1, and asserts on the requests the model
// server recorded and the transcript Claude Code wrote.
//
// Run with: make e2e-claude-mod (builds the plugin first), or
// go test -tags e2e -count=1 ./plugins/claude/e2e/ after make plugin-claude.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// runTimeout bounds one claude run: a healthy run takes 10-30 s; a hang
// (a crashed server is retried for minutes) must fail, not stall CI.
const runTimeout = 3 * time.Minute

// Markers the assertions look for.
const (
	bootOpen       = "<notesoup-boot"
	summarizerAsk  = "CRITICAL: Respond with TEXT ONLY" // Claude Code's own compaction request
	noteSecret     = "BUY-OAT-MILK-42"
	oldPromptText  = "OLD-WINDOW-PROMPT-7"
	lastWord       = "check the plan first"
	warningTail    = "tokens left before the automatic reset"
	cutoffAnswered = "notesoup: the context window is being reset now."
)

// repoRoot is two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// pluginDir returns the built plugin, refusing to run against a half-built
// one. NOTESOUP_E2E_CLAUDE_PLUGIN names another built copy, to show a test
// fails against an older mod.
func pluginDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "plugins", "claude")
	if v := os.Getenv("NOTESOUP_E2E_CLAUDE_PLUGIN"); v != "" {
		dir = v
	}
	for _, f := range []string{"bin/notesoup", "bin/notesoup-host", "hooks/tools.gen.ts", "hooks/toolhooks.gen.ts"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("plugin not built (%v); run make plugin-claude", err)
		}
	}
	return dir
}

// run is one claude -p invocation and what it left behind.
type run struct {
	ws       *modelserver.Workspace
	srv      *modelserver.Server
	stdout   []map[string]any
	sessions []string
}

// bodies returns the model requests' bodies as strings, in order.
func (r *run) bodies() []string {
	var out []string
	for _, q := range r.srv.ModelRequests(modelserver.Anthropic) {
		out = append(out, string(q.Body))
	}
	return out
}

// transcript returns the main transcript's lines decoded.
func (r *run) transcript(t *testing.T) []map[string]any {
	t.Helper()
	var main string
	for _, s := range r.sessions {
		if !strings.Contains(s, "/subagents/") && strings.HasSuffix(s, ".jsonl") {
			main = s
		}
	}
	if main == "" {
		t.Fatalf("no main transcript among %v", r.sessions)
	}
	return readJSONL(t, main)
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodeLines(t, data)
}

func decodeLines(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// startServer plays script on 127.0.0.1.
func startServer(t *testing.T, script string) *modelserver.Server {
	t.Helper()
	sc, err := modelserver.ParseScript([]byte(script), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// claude runs the real binary once in ws with the plugin loaded.
func claude(t *testing.T, ws *modelserver.Workspace, srv *modelserver.Server, env []string, args ...string) []map[string]any {
	t.Helper()
	bin, err := modelserver.CLIPath(repoRoot(t), modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	full := append([]string{"--plugin-dir", pluginDir(t), "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--debug-file", filepath.Join(ws.Dir, "debug.txt")}, args...)
	cmd, err := ws.Command(ctx, modelserver.Claude, bin, srv.URL(), modelserver.AgentOptions{
		Env: append([]string{"NOTESOUP_HOME=" + filepath.Join(ws.Dir, "notesoup")}, env...)}, full...)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude %v: %v\nstderr: %s\nstdout: %s", args, err, stderr.String(), stdout.String())
	}
	return decodeLines(t, stdout.Bytes())
}

// start runs one -p prompt (and extra claude args) in a fresh workspace.
func start(t *testing.T, script, prompt string, args ...string) *run {
	t.Helper()
	ws, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, script)
	r := &run{ws: ws, srv: srv}
	r.stdout = claude(t, ws, srv, nil, append([]string{"-p", prompt}, args...)...)
	r.sessions, err = ws.SessionFiles(modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Errorf("the model server saw unscripted requests: %v", p)
	}
	if t.Failed() {
		dumpDebug(t, ws)
	}
	return r
}

// dumpDebug prints the mod's own debug lines, which say why a reset did not happen.
func dumpDebug(t *testing.T, ws *modelserver.Workspace) {
	data, _ := os.ReadFile(filepath.Join(ws.Dir, "debug.txt"))
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "[notesoup]") || strings.Contains(l, "notesoup@inline") && strings.Contains(l, "fail") {
			t.Log(l)
		}
	}
}

func count(s, sub string) int { return strings.Count(s, sub) }

// compactBoundaries counts the transcript's compact boundaries (one per commit).
func compactBoundaries(lines []map[string]any) int {
	n := 0
	for _, l := range lines {
		if l["type"] == "system" && l["subtype"] == "compact_boundary" {
			n++
		}
	}
	return n
}

func noteAndReset(resetInput string, after string) string {
	return `{"name":"reset","turns":[
 {"text":"Saving a note.","tool_calls":[{"name":"mcp__notesoup__notes_write","input":{"name":"plan.md","content":"# Plan\n` + noteSecret + `\n"}}]},
 {"text":"Resetting.","tool_calls":[{"name":"mcp__notesoup__empty_brain","input":` + resetInput + `}]}` + after + `]}`
}

// TestResetThenFreshWindow: after a committed empty_brain the next model
// request carries the boot block with the note the model wrote, the last
// word and one handoff paragraph, and none of the old conversation; no
// summarizer request is made.
func TestResetThenFreshWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
	}{
		{"default terminate", `{"last_word":"` + lastWord + `"}`},
		{"explicit terminate false", `{"last_word":"` + lastWord + `","terminate":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := start(t, noteAndReset(tc.input, `,{"text":"Fresh window, continuing."}`), "Save a note and reset. "+oldPromptText)
			b := r.bodies()
			if len(b) != 3 {
				t.Fatalf("%d model requests, want 3 (note, reset, one fresh-window continuation)", len(b))
			}
			fresh := b[2]
			for _, want := range []string{bootOpen, noteSecret, lastWord, "## Handoff", ":1\\\""} {
				if !strings.Contains(fresh, want) {
					t.Errorf("fresh-window request lacks %q", want)
				}
			}
			if n := count(fresh, bootOpen); n != 1 {
				t.Errorf("fresh-window request holds %d boot blocks, want 1", n)
			}
			for _, old := range []string{oldPromptText, "Saving a note.", "Resetting."} {
				if strings.Contains(fresh, old) {
					t.Errorf("fresh-window request still holds old conversation text %q", old)
				}
			}
			for i, body := range b {
				if strings.Contains(body, summarizerAsk) {
					t.Errorf("request %d is a compaction summarizer request", i+1)
				}
			}
			if n := compactBoundaries(r.transcript(t)); n != 1 {
				t.Errorf("%d compact boundaries, want 1 commit", n)
			}
		})
	}
}

// TestTerminateTrue: one commit and no further model request.
func TestTerminateTrue(t *testing.T) {
	r := start(t, noteAndReset(`{"last_word":"`+lastWord+`","terminate":true}`, ""), "Save a note and stop. "+oldPromptText)
	if n := len(r.bodies()); n != 2 {
		t.Fatalf("%d model requests, want 2 (no continuation after terminate:true)", n)
	}
	if n := compactBoundaries(r.transcript(t)); n != 1 {
		t.Errorf("%d compact boundaries, want 1 commit", n)
	}
	// A script reads the run's final text: it says the reset committed.
	if res := finalResult(r.stdout); !strings.Contains(res, "the context window was reset; it ends here as asked (empty_brain terminate: true)") {
		t.Errorf("final result %q does not say the reset committed and why it ends", res)
	}
}

// TestParallelSiblingsFinish: a slow Bash call in the same response as
// empty_brain still finishes before the turn ends.
func TestParallelSiblingsFinish(t *testing.T) {
	script := `{"name":"parallel","turns":[
 {"text":"Both at once.","tool_calls":[
   {"id":"toolu_slow","name":"Bash","input":{"command":"sleep 2; echo SLOW-SIBLING-DONE","description":"slow sibling"}},
   {"id":"toolu_reset","name":"mcp__notesoup__empty_brain","input":{"terminate":true}},
   {"id":"toolu_fast","name":"mcp__notesoup__notes_list","input":{}}]}
]}`
	r := start(t, script, "Do three things. "+oldPromptText)
	if n := len(r.bodies()); n != 1 {
		t.Fatalf("%d model requests, want 1 (the batch, then the cutoff without a request)", n)
	}
	results := map[string]string{}
	for _, l := range r.transcript(t) {
		msg, _ := l["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			m, _ := b.(map[string]any)
			if m["type"] == "tool_result" {
				c, _ := json.Marshal(m["content"])
				results[m["tool_use_id"].(string)] = string(c)
			}
		}
	}
	for _, id := range []string{"toolu_slow", "toolu_reset", "toolu_fast"} {
		if _, ok := results[id]; !ok {
			t.Errorf("no tool result for %s; results: %v", id, results)
		}
	}
	if !strings.Contains(results["toolu_slow"], "SLOW-SIBLING-DONE") {
		t.Errorf("slow sibling did not finish: %s", results["toolu_slow"])
	}
}

// TestHistoryFindsOldWindow: after the reset, history_list finds text from
// before it (the current session's transcript, bound by transcript_path).
func TestHistoryFindsOldWindow(t *testing.T) {
	script := noteAndReset(`{"last_word":"`+lastWord+`"}`, `,
 {"text":"Looking back.","tool_calls":[{"name":"mcp__notesoup__history_list","input":{"query":"`+oldPromptText+`"}}]},
 {"text":"Found it."}`)
	r := start(t, script, "Save a note and reset. "+oldPromptText)
	b := r.bodies()
	if len(b) != 4 {
		t.Fatalf("%d model requests, want 4", len(b))
	}
	last := b[3]
	i := strings.LastIndex(last, "tool_result")
	if i < 0 || !strings.Contains(last[i:], oldPromptText) {
		t.Errorf("history_list result does not hold the pre-reset prompt %q: %.1500s", oldPromptText, last[max(i, 0):])
	}
}

// The default model's window is 1,000,000 tokens and Claude Code's own
// auto-compaction point 967,000; with the default margins notesoup's hard
// point is 958,808 and its warning point 942,424. These usages sit between.
const (
	usagePastWarning = 950000
	usagePastHard    = 960000
)

// TestWarningOnce: crossing the warning point gives exactly one warning in
// the window, on a main-agent tool result.
func TestWarningOnce(t *testing.T) {
	u := fmt.Sprintf(`{"input_tokens":%d,"output_tokens":10}`, usagePastWarning)
	script := `{"name":"warning","turns":[
 {"text":"Listing.","tool_calls":[{"name":"mcp__notesoup__notes_list","input":{}}],"usage":` + u + `},
 {"text":"Listing again.","tool_calls":[{"name":"mcp__notesoup__notes_list","input":{}}],"usage":` + u + `},
 {"text":"Done.","usage":` + u + `}]}`
	r := start(t, script, "List notes twice. "+oldPromptText)
	b := r.bodies()
	if len(b) != 3 {
		t.Fatalf("%d model requests, want 3", len(b))
	}
	if n := count(b[2], warningTail); n != 1 {
		t.Errorf("the last request holds the budget warning %d times, want exactly 1", n)
	}
	if n := count(b[1], warningTail); n != 1 {
		t.Errorf("the request after the crossing holds the warning %d times, want 1", n)
	}
}

// TestHardPointResets: past the hard point the turn ends at its next step
// and the window is reset to the boot without a summarizer request; a
// budget reset continues once.
func TestHardPointResets(t *testing.T) {
	u := fmt.Sprintf(`{"input_tokens":%d,"output_tokens":10}`, usagePastHard)
	script := `{"name":"hard","turns":[
 {"text":"Saving.","tool_calls":[{"name":"mcp__notesoup__notes_write","input":{"name":"plan.md","content":"# Plan\n` + noteSecret + `\n"}}],"usage":` + u + `},
 {"text":"Fresh window after the budget reset."}]}`
	r := start(t, script, "Save a note. "+oldPromptText)
	b := r.bodies()
	if len(b) != 2 {
		t.Fatalf("%d model requests, want 2 (the note, then one fresh-window continuation)", len(b))
	}
	for _, want := range []string{bootOpen, noteSecret, "## Handoff"} {
		if !strings.Contains(b[1], want) {
			t.Errorf("fresh-window request lacks %q", want)
		}
	}
	for _, old := range []string{oldPromptText, "Saving."} {
		if strings.Contains(b[1], old) {
			t.Errorf("fresh-window request still holds %q", old)
		}
	}
	for i, body := range b {
		if strings.Contains(body, summarizerAsk) {
			t.Errorf("request %d is a compaction summarizer request", i+1)
		}
	}
	if n := compactBoundaries(r.transcript(t)); n != 1 {
		t.Errorf("%d compact boundaries, want 1", n)
	}
}

// TestUserCompactVetoed: a user's /compact is vetoed with a notice; no
// summarizer request and no boundary.
func TestUserCompactVetoed(t *testing.T) {
	const sid = "5e0e3a51-1c1d-4f3e-9a2b-00000000c0de"
	r := start(t, `{"name":"veto","turns":[{"text":"Hello."}]}`, "Say hello. "+oldPromptText, "--session-id", sid)
	out := claude(t, r.ws, r.srv, nil, "-p", "/compact keep the greeting", "--resume", sid)
	for i, body := range r.bodies() {
		if strings.Contains(body, summarizerAsk) {
			t.Errorf("request %d is a compaction summarizer request", i+1)
		}
	}
	var notice bool
	for _, l := range out {
		if l["subtype"] == "ui_log" && strings.Contains(fmt.Sprint(l["text"]), "/compact is vetoed") {
			notice = true
		}
	}
	if !notice {
		t.Errorf("no veto notice on stdout: %v", out)
	}
	files, err := r.ws.SessionFiles(modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	r.sessions = files
	if n := compactBoundaries(r.transcript(t)); n != 0 {
		t.Errorf("%d compact boundaries after a vetoed /compact, want 0", n)
	}
}

// TestManualEmpty: /notesoup:empty while idle runs one close-out turn (the
// shared close-out as its prompt, so the model saves notes: a person asked,
// so it says nothing of a full window), then resets without a continuation.
// closeOutMark is a phrase of reset.CloseOutText, the close-out of a reset
// a person asked for.
const closeOutMark = "asked for this context window to be emptied now"

func TestManualEmpty(t *testing.T) {
	script := `{"name":"empty","turns":[
 {"text":"Saving before the reset.","tool_calls":[{"name":"mcp__notesoup__notes_write","input":{"name":"plan.md","content":"# Plan\n` + noteSecret + `\n"}}]},
 {"text":"Saved."}]}`
	r := start(t, script, "/notesoup:empty")
	b := r.bodies()
	if len(b) != 2 {
		t.Fatalf("%d model requests, want 2 (the close-out turn and its tool result; no continuation)", len(b))
	}
	if !strings.Contains(b[0], closeOutMark) {
		t.Errorf("the close-out request does not carry the close-out")
	}
	if strings.Contains(b[0], warningTail) {
		t.Errorf("the close-out request carries the budget warning; a person asked for this reset")
	}
	if n := compactBoundaries(r.transcript(t)); n != 1 {
		t.Errorf("%d compact boundaries, want 1", n)
	}
}

// TestStreamJSONOpenInput: the same reset in an SDK-style session
// (--input-format stream-json, stdin held open): one commit, then one
// fresh-window request with the boot and none of the old conversation.
func TestStreamJSONOpenInput(t *testing.T) {
	ws, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, noteAndReset(`{"last_word":"`+lastWord+`"}`, `,{"text":"Fresh window, continuing."}`))
	bin, err := modelserver.CLIPath(repoRoot(t), modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd, err := ws.Command(ctx, modelserver.Claude, bin, srv.URL(), modelserver.AgentOptions{
		Env: []string{"NOTESOUP_HOME=" + filepath.Join(ws.Dir, "notesoup")}},
		"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--plugin-dir", pluginDir(t), "--debug-file", filepath.Join(ws.Dir, "debug.txt"))
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Save a note and reset. " + oldPromptText}})
	if _, err := stdin.Write(append(msg, '\n')); err != nil {
		t.Fatal(err)
	}
	// The input stays open while the reset and the continuation run; it is
	// closed only once the fresh-window answer is out (or on timeout).
	deadline := time.Now().Add(runTimeout - 30*time.Second)
	for time.Now().Before(deadline) && count(stdout.String(), `"type":"result"`) < 3 {
		time.Sleep(200 * time.Millisecond)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("claude: %v\nstderr: %s", err, stderr.String())
	}
	r := &run{ws: ws, srv: srv}
	b := r.bodies()
	if len(b) != 3 {
		dumpDebug(t, ws)
		t.Fatalf("%d model requests, want 3", len(b))
	}
	for _, want := range []string{bootOpen, noteSecret, lastWord} {
		if !strings.Contains(b[2], want) {
			t.Errorf("fresh-window request lacks %q", want)
		}
	}
	if strings.Contains(b[2], oldPromptText) {
		t.Errorf("fresh-window request still holds the old prompt")
	}
}

// syncBuffer is a bytes.Buffer safe to read while the child writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPackagedPlugin: the archive make dist-claude builds installs with
// Claude Code's own plugin commands (PATH without Go) and resets as the
// --plugin-dir checkout does.
func TestPackagedPlugin(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join(repoRoot(t), "dist", "notesoup-claude-*.tar.gz"))
	if len(matches) != 1 {
		t.Fatalf("want one dist/notesoup-claude-*.tar.gz, found %v; run make dist-claude", matches)
	}
	ws, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	unpacked := filepath.Join(ws.Dir, "unpacked")
	if err := os.MkdirAll(unpacked, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xzf", matches[0], "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v: %s", err, out)
	}
	srv := startServer(t, noteAndReset(`{"last_word":"`+lastWord+`"}`, `,{"text":"Fresh window, continuing."}`))
	bin, err := modelserver.CLIPath(repoRoot(t), modelserver.Claude)
	if err != nil {
		t.Fatal(err)
	}
	env := modelserver.AgentOptions{Env: []string{"NOTESOUP_HOME=" + filepath.Join(ws.Dir, "notesoup")}}
	for _, args := range [][]string{
		{"plugin", "marketplace", "add", filepath.Join(unpacked, "notesoup-claude-marketplace")},
		{"plugin", "install", "notesoup@notesoup"},
	} {
		cmd, err := ws.Command(t.Context(), modelserver.Claude, bin, srv.URL(), env, args...)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("claude %v: %v: %s", args, err, out)
		}
	}
	cmd, err := ws.Command(t.Context(), modelserver.Claude, bin, srv.URL(), env,
		"-p", "Save a note and reset. "+oldPromptText, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude -p: %v: %s", err, out)
	}
	r := &run{ws: ws, srv: srv}
	b := r.bodies()
	if len(b) != 3 {
		t.Fatalf("%d model requests, want 3", len(b))
	}
	if !strings.Contains(b[2], noteSecret) || strings.Contains(b[2], oldPromptText) {
		t.Errorf("fresh-window request: note present %v, old prompt present %v", strings.Contains(b[2], noteSecret), strings.Contains(b[2], oldPromptText))
	}
}

// TestResumeKeepsOneBoot: resuming a session after a reset sends the
// retained boot once (prompt.context does not add a second) and still none
// of the old window.
func TestResumeKeepsOneBoot(t *testing.T) {
	const sid = "5e0e3a51-1c1d-4f3e-9a2b-00000000b007"
	r := start(t, noteAndReset(`{"last_word":"`+lastWord+`"}`, `,{"text":"Fresh window, continuing."},{"text":"Resumed."}`),
		"Save a note and reset. "+oldPromptText, "--session-id", sid)
	claude(t, r.ws, r.srv, nil, "-p", "Carry on after the resume.", "--resume", sid)
	b := r.bodies()
	if len(b) != 4 {
		t.Fatalf("%d model requests, want 4", len(b))
	}
	if n := count(b[3], bootOpen); n != 1 {
		t.Errorf("the resumed request holds %d boot blocks, want 1", n)
		dumpDebug(t, r.ws)
	}
	if !strings.Contains(b[3], noteSecret) || strings.Contains(b[3], oldPromptText) {
		t.Errorf("resumed request: note present %v, old prompt present %v", strings.Contains(b[3], noteSecret), strings.Contains(b[3], oldPromptText))
	}
}
