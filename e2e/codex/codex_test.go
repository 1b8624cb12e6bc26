//go:build e2e

// Package codex runs the real Codex CLI (e2e/install.sh) wired to notesoup
// by `notesoup install codex` — the MCP server, the hooks and the
// compaction prompt — against the scripted Responses server on 127.0.0.1,
// in an isolated HOME and CODEX_HOME: make e2e-codex.
package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// runTimeout bounds one codex run; a scripted run takes seconds, and Codex
// retries a broken server for minutes, so a hang shows up as this timeout.
const runTimeout = 3 * time.Minute

// autoCompactLimit is the model_auto_compact_token_limit written to
// config.toml (not passed with -c: hooks cannot see -c overrides). With
// notesoup's default margins (8192, 16384) the warning point is 35,424: the
// script's 40,000-token replies cross it, its 80,000-token reply crosses
// Codex's own limit and forces a compaction.
const autoCompactLimit = 60000

// prompt is the user's prompt; history_list must find it.
const prompt = "Keep the release plan in your notes, then check this session's history."

// item is one Responses input item, as far as the assertions need it.
type item struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   []contentPart   `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (it item) text() string {
	var b strings.Builder
	for _, c := range it.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// outputText is a function_call_output's text: a string, or an array of
// input_text parts (codex.md §5).
func (it item) outputText() string {
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []contentPart
	json.Unmarshal(it.Output, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// request is one recorded model request.
type request struct {
	answer string
	header map[string]string
	input  []item
}

func requests(t *testing.T, srv *modelserver.Server) []request {
	t.Helper()
	var out []request
	for _, r := range srv.ModelRequests(modelserver.Responses) {
		var body struct {
			Input []item `json:"input"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("request %d: body is not a Responses request: %v", r.Seq, err)
		}
		out = append(out, request{answer: r.Answer, header: r.Header, input: body.Input})
	}
	return out
}

// toolOutput returns the output the model was given for its call of tool.
func (r request) toolOutput(tool string) (string, bool) {
	callID := ""
	for _, it := range r.input {
		if it.Type == "function_call" && it.Name == tool && it.Namespace == "mcp__notesoup" {
			callID = it.CallID
		}
	}
	for _, it := range r.input {
		if callID != "" && it.Type == "function_call_output" && it.CallID == callID {
			return it.outputText(), true
		}
	}
	return "", false
}

// developer returns the developer messages holding sub.
func (r request) developer(sub string) []string {
	var out []string
	for _, it := range r.input {
		if it.Type == "message" && it.Role == "developer" && strings.Contains(it.text(), sub) {
			out = append(out, it.text())
		}
	}
	return out
}

func (r request) lastUser() string {
	for i := len(r.input) - 1; i >= 0; i-- {
		if it := r.input[i]; it.Type == "message" && it.Role == "user" {
			return it.text()
		}
	}
	return ""
}

// env is one isolated Codex setup: HOME, CODEX_HOME, work dir, notes home.
type env struct {
	codexBin, bin        string
	w                    *modelserver.Workspace
	notesHome, codexHome string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	codexBin, err := modelserver.CLIPath(repo, modelserver.Codex)
	if err != nil {
		t.Fatal(err)
	}
	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &env{codexBin: codexBin, bin: testbin.Installed(t, repo), w: w,
		notesHome: filepath.Join(w.Dir, "notesoup"), codexHome: filepath.Join(w.Home, ".codex")}
}

// run starts a model server playing script, wires Codex to it and to
// notesoup (notesoup install codex over the provider's config.toml), runs
// codex with args, and returns the server with what it recorded.
func (e *env) run(t *testing.T, script string, vars map[string]string, args ...string) *modelserver.Server {
	t.Helper()
	sc, err := modelserver.LoadScript(filepath.Join("testdata", script), vars)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(e.w.Dir, "requests-"+script+"l")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	// Command writes the provider's config.toml; install then merges into
	// it. No --dangerously-bypass-hook-trust: install records the hooks'
	// trust as Codex's "Trust all" does, and the boot blocks below arrive
	// only if Codex accepts it.
	full := append([]string{"exec", "--skip-git-repo-check", "-C", e.w.Work}, args...)
	cmd, err := e.w.Command(ctx, modelserver.Codex, e.codexBin, srv.URL(), modelserver.AgentOptions{
		Env: []string{"NOTESOUP_HOME=" + e.notesHome},
	}, full...)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(e.codexHome, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	// A top-level key must precede the provider table.
	limit := fmt.Sprintf("model_auto_compact_token_limit = %d\n", autoCompactLimit)
	if err := os.WriteFile(cfgPath, append([]byte(limit), cfg...), 0o600); err != nil {
		t.Fatal(err)
	}
	inst := exec.Command(e.bin, "install", "codex", "--codex-home", e.codexHome, "--binary", e.bin)
	inst.Env = append(os.Environ(), "HOME="+e.w.Home)
	out, err := inst.CombinedOutput()
	if err != nil {
		t.Fatalf("notesoup install codex: %v\n%s", err, out)
	}
	t.Logf("notesoup install codex:\n%s", out)
	if !bytes.Contains(out, []byte("hooks trusted")) && !bytes.Contains(out, []byte("already trusts notesoup's hooks")) {
		t.Fatalf("notesoup install codex did not record the hooks' trust:\n%s", out)
	}
	// The hooks run the notesoup installed (make build's light build).
	if hooks, err := os.ReadFile(filepath.Join(e.codexHome, "hooks.json")); err != nil || !bytes.Contains(hooks, []byte(e.bin+" hook codex SessionStart")) {
		t.Fatalf("hooks.json does not run %s (%v):\n%s", e.bin, err, hooks)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	t.Logf("codex %v stderr:\n%s", args, stderr.String())
	if runErr != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s", runErr, stdout.String())
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	return srv
}

// threadOf returns the thread id of a rollout: the file name's last 36
// characters (codex.md §2).
func threadOf(t *testing.T, path string) string {
	t.Helper()
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	id = id[max(0, len(id)-36):]
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(id) {
		t.Fatalf("rollout %s: no thread id at the end of its name", path)
	}
	return id
}

func TestCodexNotesHistoryAndBootAfterCompaction(t *testing.T) {
	e := newEnv(t)
	w, notesHome := e.w, e.notesHome
	mark := fmt.Sprintf("owner-%d", time.Now().UnixNano()) // unique per run: found only if this run wrote it
	srv := e.run(t, "notes-history-compact.json", map[string]string{"MARK": mark}, prompt)
	files, err := w.SessionFiles(modelserver.Codex)
	if err != nil || len(files) != 1 {
		t.Fatalf("want one rollout, got %v (%v)", files, err)
	}
	thread := threadOf(t, files[0])

	reqs := requests(t, srv)
	var answers []string
	for _, r := range reqs {
		answers = append(answers, r.answer)
	}
	want := []string{"turn 0", "turn 1", "turn 2", "rule compaction", "turn 3"}
	if strings.Join(answers, ",") != strings.Join(want, ",") {
		t.Fatalf("model requests answered by %v, want %v", answers, want)
	}

	// Session start: the boot block of window 0 reaches the first request.
	boot0 := `<notesoup-boot window="codex:` + thread + `:0">`
	if len(reqs[0].developer(boot0)) != 1 {
		t.Errorf("first request lacks the startup boot %s", boot0)
	}

	// notes_write ran (approved by install) and wrote the note.
	out, ok := reqs[1].toolOutput("notes_write")
	if !ok {
		t.Fatalf("second request carries no notes_write output")
	}
	if !strings.Contains(out, "plan.md") || strings.Contains(out, "approval") {
		t.Errorf("notes_write output = %q, want a confirmation naming plan.md", out)
	}
	found := false
	filepath.WalkDir(notesHome, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == "plan.md" {
			b, _ := os.ReadFile(p)
			found = strings.Contains(string(b), mark)
		}
		return nil
	})
	if !found {
		t.Errorf("plan.md holding %q not found under NOTESOUP_HOME %s", mark, notesHome)
	}

	// The budget warning: once, after the first tool result crossed 35,424.
	if n := len(reqs[1].developer("notesoup budget warning")); n != 1 {
		t.Errorf("second request has %d budget warnings, want 1", n)
	}
	for i, r := range reqs[2:] {
		if n := len(r.developer("notesoup budget warning")); n > 1 {
			t.Errorf("request %d repeats the budget warning (%d copies)", i+3, n)
		}
	}

	// history_list with no selector reads this thread: the prompt and the
	// notes_write call are in it.
	out, ok = reqs[2].toolOutput("history_list")
	if !ok {
		t.Fatalf("third request carries no history_list output")
	}
	t.Logf("history_list output:\n%s", out)
	for _, w := range []string{prompt, "notes_write"} {
		if !strings.Contains(out, w) {
			t.Errorf("history_list output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "not on disk") || strings.Contains(out, "refus") {
		t.Errorf("history_list refused:\n%s", out)
	}

	// The compaction ran with notesoup's prompt.
	if lu := reqs[3].lastUser(); !strings.Contains(lu, "This project uses notesoup") {
		t.Errorf("compaction request's prompt is not notesoup's compact_prompt:\n%.400s", lu)
	}
	// After it, the boot of window 1, listing the note, reaches the model.
	boot1 := `<notesoup-boot window="codex:` + thread + `:1">`
	b1 := reqs[4].developer(boot1)
	if len(b1) != 1 {
		t.Fatalf("request after the compaction lacks the boot %s", boot1)
	}
	t.Logf("boot after the compaction:\n%s", b1[0])
	if !strings.Contains(b1[0], "plan.md") {
		t.Errorf("boot after the compaction does not list plan.md:\n%s", b1[0])
	}
	if len(reqs[4].developer(boot0)) != 0 {
		t.Errorf("request after the compaction still carries the window-0 boot")
	}
}

// forkPrompt is the prompt of the fork's first turn.
const forkPrompt = "In this fork, recall what the parent session did."

func TestCodexForkOfACompactedThread(t *testing.T) {
	e := newEnv(t)
	e.run(t, "notes-history-compact.json", map[string]string{"MARK": "fork-parent"}, prompt)
	files, err := e.w.SessionFiles(modelserver.Codex)
	if err != nil || len(files) != 1 {
		t.Fatalf("want the parent's rollout, got %v (%v)", files, err)
	}
	parent := threadOf(t, files[0])

	srv := e.run(t, "fork.json", nil, "fork", parent, forkPrompt)
	files, err = e.w.SessionFiles(modelserver.Codex)
	if err != nil || len(files) != 2 {
		t.Fatalf("want the parent's and the fork's rollouts, got %v (%v)", files, err)
	}
	fork := ""
	for _, f := range files {
		if id := threadOf(t, f); id != parent {
			fork = id
		}
	}
	reqs := requests(t, srv)
	if len(reqs) != 2 {
		t.Fatalf("fork made %d model requests, want 2", len(reqs))
	}
	// The fork inherits the parent's compaction: its first window is the
	// parent's second, under the fork's own thread id.
	bootFork := `<notesoup-boot window="codex:` + fork + `:1">`
	if len(reqs[0].developer(bootFork)) != 1 {
		var boots []string
		for _, d := range reqs[0].developer("<notesoup-boot") {
			boots = append(boots, d[:min(len(d), 90)])
		}
		t.Errorf("fork's first request lacks %s; boots present: %q", bootFork, boots)
	}
	out, ok := reqs[1].toolOutput("history_list")
	if !ok {
		t.Fatalf("fork's second request carries no history_list output")
	}
	t.Logf("history_list in the fork:\n%s", out)
	for _, w := range []string{forkPrompt, prompt, "codex:" + fork + ":"} {
		if !strings.Contains(out, w) {
			t.Errorf("fork's history_list lacks %q", w)
		}
	}
}

// bootOpen opens every notesoup boot block; bootWindow captures its window.
var bootWindow = regexp.MustCompile(`<notesoup-boot window=\\?"([^"\\]+)\\?">`)

// bootWindows returns the window of each boot block a request carries,
// wherever it is (the server instructions, a developer message), in order.
func bootWindows(body []byte) []string {
	var out []string
	for _, m := range bootWindow.FindAllSubmatch(body, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestCodexOneBootPerWindow: with notesoup's hooks trusted, every request
// of a first run and of an `exec resume` of it carries the window's boot
// block exactly once: the hook's, bound to the thread, and neither the MCP
// server's unbound one nor a second copy from the resume.
func TestCodexOneBootPerWindow(t *testing.T) {
	e := newEnv(t)
	first := e.run(t, "resume.json", nil, "Remember the release plan.")
	files, err := e.w.SessionFiles(modelserver.Codex)
	if err != nil || len(files) != 1 {
		t.Fatalf("want one rollout, got %v (%v)", files, err)
	}
	want := "codex:" + threadOf(t, files[0]) + ":0"
	second := e.run(t, "resume.json", nil, "resume", "--last", "Carry on with the plan.")
	for run, srv := range []*modelserver.Server{first, second} {
		reqs := srv.ModelRequests(modelserver.Responses)
		if len(reqs) == 0 {
			t.Fatalf("run %d made no model request", run+1)
		}
		for _, r := range reqs {
			got := bootWindows(r.Body)
			if len(got) != 1 || got[0] != want {
				t.Errorf("run %d request %d carries boot blocks %q, want exactly one of %s", run+1, r.Seq, got, want)
			}
		}
	}
}

// TestCodexLoadsNotesoupSkills: the memory and dream skills install writes
// into $CODEX_HOME/skills are the ones the real Codex offers the model
// (codex debug prompt-input renders the prompt without a model request).
func TestCodexLoadsNotesoupSkills(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	// No model request is made: the provider's address is never dialled.
	cmd, err := e.w.Command(ctx, modelserver.Codex, e.codexBin, "http://127.0.0.1:9", modelserver.AgentOptions{}, "debug", "prompt-input", "hi")
	if err != nil {
		t.Fatal(err)
	}
	inst := exec.Command(e.bin, "install", "codex", "--codex-home", e.codexHome, "--binary", e.bin)
	inst.Env = append(os.Environ(), "HOME="+e.w.Home)
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("notesoup install codex: %v\n%s", err, out)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex debug prompt-input: %v\n%s", err, out)
	}
	root := "= `" + filepath.Join(e.codexHome, "skills") + "`"
	for _, want := range []string{root, "- memory: Keep notesoup notes", "- dream: Consolidate notesoup notes"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the prompt Codex renders lacks %q", want)
		}
	}
}
