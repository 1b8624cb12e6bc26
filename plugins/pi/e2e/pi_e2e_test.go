//go:build e2e

// Package e2e runs the real pi (e2e/install.sh) with the notesoup extension
// against the scripted model server in an isolated HOME: make pi-e2e.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// runTimeout bounds one pi run; a scripted run takes seconds, and pi retries
// a broken server for a long time, so a hang shows up as this timeout.
const runTimeout = 2 * time.Minute

// contextWindow is the fake model's window: large enough that the budget
// policy resolves (native = window − Pi's 16384 reserve, then the margins).
const contextWindow = 200000

// firstPrompt is the user's prompt; its text must be gone from the model's
// view after the reset and found again by history_list.
const firstPrompt = "Remember my grocery errand: buy oat milk, not cow milk. Then empty your brain."

type env struct {
	repo, pi, ext string
	w             *modelserver.Workspace
	srv           *modelserver.Server
	notesHome     string
}

func setup(t *testing.T, script string, vars map[string]string) *env {
	t.Helper()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	pi, err := modelserver.CLIPath(repo, modelserver.Pi)
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(repo, "plugins", "pi")
	if _, err := os.Stat(filepath.Join(ext, "bin", "notesoup")); err != nil {
		t.Fatalf("plugin-local binary missing (%v); run make pi-build", err)
	}
	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sc, err := modelserver.LoadScript(filepath.Join("testdata", script), vars)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(w.Dir, "requests.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &env{repo: repo, pi: pi, ext: ext, w: w, srv: srv, notesHome: filepath.Join(w.Dir, "notesoup")}
}

// run runs pi with the extension loaded from the plugin folder (the way
// `pi install ./plugins/pi` loads it) and returns stdout and stderr.
func (e *env) run(t *testing.T, extraEnv []string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	full := append([]string{"-nc", "--provider", "fake", "--model", modelserver.DefaultModel, "-e", e.ext}, args...)
	cmd, err := e.w.Command(ctx, modelserver.Pi, e.pi, e.srv.URL(), modelserver.AgentOptions{
		PiContextWindow: contextWindow,
		PiSettings:      `{"retry":{"enabled":false}}`,
		Env:             append([]string{"NOTESOUP_HOME=" + e.notesHome}, extraEnv...),
	}, full...)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pi %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// entries reads the one session file pi wrote.
func (e *env) entries(t *testing.T) []map[string]any {
	t.Helper()
	files, err := e.w.SessionFiles(modelserver.Pi)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("want one pi session file, got %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: bad line %q: %v", files[0], sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func ofType(es []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range es {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

// bodies are the chat-completions request bodies the server received.
func (e *env) bodies() []string {
	var out []string
	for _, r := range e.srv.ModelRequests(modelserver.Chat) {
		out = append(out, string(r.Body))
	}
	return out
}

func TestResetThroughPiCompaction(t *testing.T) {
	for _, tc := range []struct {
		name      string
		terminate bool
		// requests is how many model requests pi makes: the two before the
		// reset, then (without terminate) the continuation and its
		// history_list follow-up.
		requests int
	}{
		{"continue", false, 4},
		{"terminate", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := "false"
			if tc.terminate {
				term = "true"
			}
			e := setup(t, "reset.json", map[string]string{"TERMINATE": term})
			stdout, stderr := e.run(t, nil, "-p", firstPrompt)
			if p := e.srv.Problems(); len(p) > 0 {
				t.Fatalf("model server problems: %v\nstderr:\n%s", p, stderr)
			}
			bodies := e.bodies()
			if len(bodies) != tc.requests {
				t.Fatalf("model requests = %d, want %d\nstderr:\n%s", len(bodies), tc.requests, stderr)
			}
			// The first request already carries the boot (session start).
			if !strings.Contains(bodies[0], `\u003cnotesoup-boot window=\"pi:`) && !strings.Contains(bodies[0], `<notesoup-boot window=\"pi:`) {
				t.Errorf("first request has no boot block:\n%.2000s", bodies[0])
			}
			es := e.entries(t)
			t.Logf("pi stderr:\n%s", stderr)
			for _, en := range es {
				b, _ := json.Marshal(en)
				t.Logf("entry: %.300s", b)
			}
			sid, _ := es[0]["id"].(string)
			comps := ofType(es, "compaction")
			if len(comps) != 1 {
				t.Fatalf("compaction entries = %d, want 1\nstderr:\n%s", len(comps), stderr)
			}
			c := comps[0]
			summary, _ := c["summary"].(string)
			if c["fromHook"] != true {
				t.Errorf("compaction fromHook = %v, want true (written by the extension)", c["fromHook"])
			}
			for _, want := range []string{`<notesoup-boot window="pi:` + sid + `:1">`, "shopping.md", "buy oat milk, not cow milk", "check the shopping note first"} {
				if !strings.Contains(summary, want) {
					t.Errorf("compaction summary lacks %q:\n%s", want, summary)
				}
			}
			if strings.Contains(summary, "PI SUMMARY") {
				t.Errorf("pi summarized instead of notesoup")
			}
			boots := 0
			for _, m := range ofType(es, "custom_message") {
				if m["customType"] == "notesoup-boot" {
					boots++
				}
			}
			if boots != 1 {
				t.Errorf("boot messages injected at session start = %d, want 1", boots)
			}
			// Print mode shows the work: the text before empty_brain (Pi
			// printed nothing, the run ended on its tool result) and then
			// the continuation's answer (Pi printed before it ran).
			want := "Notes saved; emptying my brain.\n"
			if !tc.terminate {
				want += "\nThe shopping note says oat milk; the old conversation is in history.\n"
			}
			if stdout != want {
				t.Errorf("pi -p stdout = %q, want %q", stdout, want)
			}
			if tc.terminate {
				return
			}
			// The continuation: the boot with the note, none of the old
			// conversation.
			next := bodies[2]
			for _, want := range []string{"notesoup-boot", "buy oat milk, not cow milk", "check the shopping note first"} {
				if !strings.Contains(next, want) {
					t.Errorf("request after the reset lacks %q:\n%.3000s", want, next)
				}
			}
			for _, gone := range []string{"grocery errand", "Saving the list to my notes", "Notes saved; emptying my brain"} {
				if strings.Contains(next, gone) {
					t.Errorf("request after the reset still carries %q from the old window:\n%.3000s", gone, next)
				}
			}
			// history_list (run in the new window) found the first prompt.
			if !strings.Contains(bodies[3], "grocery errand") {
				t.Errorf("history_list result lacks the prompt from before the reset:\n%.3000s", bodies[3])
			}
		})
	}
}

// warningPhrase is part of the shared budget warning (shared/reset
// WarningText).
const warningPhrase = "tokens left before the automatic reset"

// checkBudget checks a budget run: exactly one warning, delivered with the
// tool result the model reads next; the hard point ended the run before a
// fourth request of the old window; the reset installed the window-1 boot
// with a forced handoff; the continuation request is a clean window.
func checkBudget(t *testing.T, e *env, bodies []string) {
	t.Helper()
	// 160,010 tokens crossed the warning point (159,040).
	for i, want := range []int{0, 1, 1, 0} {
		if got := strings.Count(bodies[i], warningPhrase); got != want {
			t.Errorf("request %d carries the warning %d times, want %d", i+1, got, want)
		}
	}
	if !strings.Contains(bodies[1], "empty_brain") {
		t.Errorf("warning does not name the reset tool")
	}
	// 180,010 tokens crossed the hard point (175,424).
	es := e.entries(t)
	sid, _ := es[0]["id"].(string)
	comps := ofType(es, "compaction")
	if len(comps) != 1 {
		t.Fatalf("compaction entries = %d, want 1", len(comps))
	}
	summary, _ := comps[0]["summary"].(string)
	if !strings.Contains(summary, `<notesoup-boot window="pi:`+sid+`:1">`) {
		t.Errorf("compaction summary is not the window-1 boot:\n%s", summary)
	}
	if d, _ := comps[0]["details"].(map[string]any); d == nil || d["notesoup"].(map[string]any)["pool"] != "forced" {
		t.Errorf("automatic reset used handoff pool %v, want forced", comps[0]["details"])
	}
	last := bodies[3]
	if !strings.Contains(last, "notesoup-boot") || strings.Contains(last, "Work through the backlog") || strings.Contains(last, "Still working.") {
		t.Errorf("continuation request is not a clean window:\n%.3000s", last)
	}
}

func TestBudgetWarningThenHardPoint(t *testing.T) {
	e := setup(t, "budget.json", nil)
	stdout, stderr := e.run(t, nil, "-p", "Work through the backlog")
	t.Logf("pi stdout:\n%s\npi stderr:\n%s", stdout, stderr)
	if p := e.srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	bodies := e.bodies()
	if len(bodies) != 4 {
		t.Fatalf("model requests = %d, want 4 (three before the hard point, one continuation)", len(bodies))
	}
	checkBudget(t, e, bodies)
	// The run the hard point ended says so; the continuation's answer
	// follows it (Pi printed before the continuation ran).
	if !strings.Contains(stdout, "Fresh window after the automatic reset.") {
		t.Errorf("pi -p stdout lacks the continuation's answer:\n%s", stdout)
	}
}
