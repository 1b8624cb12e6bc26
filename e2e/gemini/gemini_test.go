//go:build e2e

// Package gemini runs the real Gemini CLI (e2e/install.sh) wired to
// notesoup by `notesoup install gemini` — the MCP server and the
// SessionStart, AfterTool and BeforeAgent hooks — against the scripted Gemini API on 127.0.0.1, in an
// isolated HOME and GEMINI_CLI_HOME:
//
//	go test -tags e2e -count=1 ./e2e/gemini/
package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// runTimeout bounds one gemini run; a scripted run takes seconds.
const runTimeout = 3 * time.Minute

// request is one recorded Gemini API request, as far as the assertions
// need it.
type request struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string          `json:"text"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

// text is every text part of the request, unescaped: Gemini HTML-escapes
// a hook's context inside its <hook_context> tag.
func (r request) text() string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text)
			b.WriteString(string(p.FunctionResponse))
			b.WriteByte('\n')
		}
	}
	return html.UnescapeString(b.String())
}

func (r request) tools() []string {
	var out []string
	for _, t := range r.Tools {
		for _, f := range t.FunctionDeclarations {
			out = append(out, f.Name)
		}
	}
	return out
}

func requests(t *testing.T, srv *modelserver.Server) []request {
	t.Helper()
	var out []request
	for _, r := range srv.ModelRequests(modelserver.Gemini) {
		var q request
		if err := json.Unmarshal(r.Body, &q); err != nil {
			t.Fatalf("request %d is not a Gemini request: %v", r.Seq, err)
		}
		out = append(out, q)
	}
	return out
}

// env is one isolated Gemini setup.
type env struct {
	geminiBin, bin string
	w              *modelserver.Workspace
	notesHome      string
	geminiDir      string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	geminiBin, err := modelserver.CLIPath(repo, modelserver.GeminiCLI)
	if err != nil {
		t.Fatal(err)
	}
	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &env{geminiBin: geminiBin, bin: testbin.Installed(t, repo), w: w,
		notesHome: filepath.Join(w.Dir, "notesoup"), geminiDir: filepath.Join(w.Home, ".gemini")}
}

// run plays script against gemini -p prompt, wired to notesoup by
// `notesoup install gemini` over the settings the workspace writes, and
// returns the server and the session id gemini printed.
func (e *env) run(t *testing.T, script string, vars map[string]string, extra ...string) (*modelserver.Server, string) {
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
	args := append([]string{"-m", modelserver.GeminiModel, "--output-format", "json"}, extra...)
	// Command writes settings.json (API-key auth); install merges into it.
	cmd, err := e.w.Command(ctx, modelserver.GeminiCLI, e.geminiBin, srv.URL(),
		modelserver.AgentOptions{Env: []string{"NOTESOUP_HOME=" + e.notesHome}}, args...)
	if err != nil {
		t.Fatal(err)
	}
	inst := exec.Command(e.bin, "install", "gemini", "--gemini-dir", e.geminiDir, "--binary", e.bin)
	inst.Env = append(os.Environ(), "HOME="+e.w.Home, "GEMINI_CLI_HOME="+e.w.Home)
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("notesoup install gemini: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	t.Logf("gemini %v stderr:\n%s", extra, stderr.String())
	if runErr != nil {
		t.Fatalf("gemini: %v\nstdout:\n%s", runErr, stdout.String())
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	if srv.TurnsUsed() != len(sc.Turns) {
		t.Fatalf("used %d of %d scripted turns", srv.TurnsUsed(), len(sc.Turns))
	}
	var answer struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil || answer.SessionID == "" {
		t.Fatalf("no session id in gemini's answer (%v):\n%s", err, stdout.String())
	}
	return srv, answer.SessionID
}

// TestGeminiNotesAndBoot: with notesoup installed, the first request of a
// headless gemini run carries the boot block of window gemini:<id>:0 (from
// the SessionStart hook) and offers the notes and history tools; a
// scripted notes_write lands the note on disk, and notes_list sees it. A
// resumed run of the same session gets the boot again, listing the note.
func TestGeminiNotesAndBoot(t *testing.T) {
	e := newEnv(t)
	mark := fmt.Sprintf("owner-%d", time.Now().UnixNano()) // found only if this run wrote it
	srv, session := e.run(t, "notes.json", map[string]string{"MARK": mark},
		"-p", "Keep the release plan in your notes.")
	reqs := requests(t, srv)
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	boot := `<notesoup-boot window="gemini:` + session + `:0">`
	if n := strings.Count(reqs[0].text(), boot); n != 1 {
		t.Errorf("first request carries %d copies of %s, want 1:\n%.3000s", n, boot, reqs[0].text())
	}
	for _, tool := range []string{"notes_list", "notes_read", "notes_write", "notes_edit", "notes_delete", "history_list", "history_read"} {
		if !slices.Contains(reqs[0].tools(), "mcp_notesoup_"+tool) {
			t.Errorf("first request does not offer mcp_notesoup_%s: %v", tool, reqs[0].tools())
		}
	}
	if strings.Contains(reqs[0].text(), "empty_brain") {
		t.Errorf("the boot offers a reset tool Gemini does not have")
	}
	// notes_write ran without a prompt (the server is trusted) and wrote
	// the note.
	found := ""
	filepath.WalkDir(e.notesHome, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == "plan.md" {
			b, _ := os.ReadFile(p)
			found = string(b)
		}
		return nil
	})
	if !strings.Contains(found, mark) {
		t.Fatalf("plan.md holding %q not found under NOTESOUP_HOME %s (found %q)", mark, e.notesHome, found)
	}
	if !strings.Contains(reqs[2].text(), "plan.md") {
		t.Errorf("notes_list's answer sent back lacks plan.md:\n%.2000s", reqs[2].text())
	}

	// Resume: SessionStart fires with source "resume"; the boot of the
	// same session now lists the note.
	srv2, session2 := e.run(t, "resume.json", nil, "--resume", "latest", "-p", "What is in the plan?")
	if session2 != session {
		t.Fatalf("resumed session %s, want %s", session2, session)
	}
	r2 := requests(t, srv2)
	if len(r2) != 1 {
		t.Fatalf("%d requests on resume, want 1", len(r2))
	}
	// The resumed history holds the first run's prompts without their hook
	// context; the one boot is the resume's, after the first run's answer.
	last := r2[0].text()
	if n := strings.Count(last, boot); n != 1 || strings.Index(last, boot) < strings.Index(last, "The plan is in plan.md.") {
		t.Fatalf("the resumed run's request carries %d boots %s, want one after the first run's answer:\n%.3000s", n, boot, last)
	}
	block := last[strings.LastIndex(last, boot):]
	block, _, _ = strings.Cut(block, "</notesoup-boot>")
	if !strings.Contains(block, "plan.md") {
		t.Errorf("the resume boot does not list plan.md:\n%s", block)
	}
}

// TestGeminiBudgetWarning: a scripted reply reports a prompt of 505,000
// tokens, past the warning point (Gemini's own 524,288, 0.5 × 1,048,576,
// less notesoup's margins) but short of Gemini's compression; the
// AfterTool hook then appends the budget warning to the tool's result, so
// the next request carries it once. The second tool call, past the point
// again in the same window, adds no second warning.
func TestGeminiBudgetWarning(t *testing.T) {
	e := newEnv(t)
	srv, _ := e.run(t, "budget.json", nil, "-p", "What is in my notes?")
	reqs := requests(t, srv)
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	const warning = "notesoup budget warning:"
	for i, want := range []int{0, 1, 1} {
		if n := strings.Count(reqs[i].text(), warning); n != want {
			t.Errorf("request %d carries %d budget warnings, want %d:\n%.4000s", i+1, n, want, reqs[i].text())
		}
	}
	text := reqs[1].text()
	w := text[strings.Index(text, warning):]
	for _, want := range []string{"the Gemini CLI will compress it on its own", "mcp_notesoup_notes_write", "tokens left before Gemini compresses."} {
		if !strings.Contains(w, want) {
			t.Errorf("the warning lacks %q:\n%.2000s", want, w)
		}
	}
	if strings.Contains(w, "empty_brain") {
		t.Errorf("the warning offers a reset tool Gemini does not have")
	}
	// The warning rode on the tool's result (AfterTool), not on a prompt.
	if !strings.Contains(string(lastFunctionResponse(reqs[1])), "budget warning") {
		t.Errorf("the warning is not in the notes_list result sent back:\n%.3000s", text)
	}
}

// lastFunctionResponse is the request's last function response part.
func lastFunctionResponse(r request) json.RawMessage {
	var last json.RawMessage
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if len(p.FunctionResponse) > 0 {
				last = p.FunctionResponse
			}
		}
	}
	return last
}
