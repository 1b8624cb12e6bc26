//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// loopTimeout bounds the looping run: two ScheduleWakeup wakeups, each
// clamped by the engine to at least 60 s and fired on a whole minute, so the
// run takes 2-4 minutes; a hang (a dead server is retried for minutes) shows
// up as this timeout.
const loopTimeout = 8 * time.Minute

// shortTimeout bounds a run with no wakeup.
const shortTimeout = 3 * time.Minute

// sessionID is fixed so the ledger's file name is known before the run.
const sessionID = "1b0c7e55-2d4a-4c1e-8f00-00000000000a"

// runKey is the /auto run key the mod derives from the session id.
const runKey = "1b0c7e55"

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// conversation is the user and assistant messages of a request (the engine
// interleaves role "system" messages, which are not the conversation).
func conversation(t *testing.T, body []byte) []message {
	t.Helper()
	var req struct {
		Messages []message `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []message
	for _, m := range req.Messages {
		if m.Role != "system" {
			out = append(out, m)
		}
	}
	return out
}

// texts are the text blocks of a message (a string content is one block).
func texts(t *testing.T, m message) []string {
	t.Helper()
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []string{s}
	}
	var blocks []block
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		t.Fatalf("message content: %v", err)
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// engineBlock reports text the engine adds to every conversation on its own:
// context reminders, and the echo of the /compact command the mod ran (the
// headless route).
func engineBlock(s string) bool {
	for _, p := range []string{"<system-reminder>", "<local-command-caveat>", "<command-name>/compact</command-name>", "<local-command-stdout>"} {
		if strings.HasPrefix(strings.TrimSpace(s), p) {
			return true
		}
	}
	return false
}

// checkNearClear asserts that a request carries exactly one user message
// whose own text is the boundary message (naming outcome, the run key and the
// run-state file) then prompt, and nothing of the earlier iterations.
func checkNearClear(t *testing.T, name string, body []byte, outcome, key, statePath, prompt string, gone []string) {
	t.Helper()
	conv := conversation(t, body)
	if len(conv) != 1 || conv[0].Role != "user" {
		roles := make([]string, len(conv))
		for i, m := range conv {
			roles[i] = m.Role
		}
		t.Fatalf("%s: want one user message after the boundary, got %v", name, roles)
	}
	var own []string
	for _, s := range texts(t, conv[0]) {
		if !engineBlock(s) {
			own = append(own, strings.TrimSpace(s))
		}
	}
	if len(own) != 2 || own[1] != prompt {
		t.Fatalf("%s: want [boundary message, %s], got %q", name, prompt, own)
	}
	msg := own[0]
	for _, want := range []string{
		"Loop boundary: the previous /auto iteration ended with `" + outcome + "`.",
		"Run key " + key,
		statePath,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("%s: boundary message %q lacks %q", name, msg, want)
		}
	}
	for _, g := range gone {
		if bytes.Contains(body, []byte(g)) {
			t.Errorf("%s: request still carries %q from an earlier iteration", name, g)
		}
	}
}

func readLedger(t *testing.T, path string) ([]map[string]any, []string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("ledger: %v", err)
	}
	var rows []map[string]any
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("ledger line %q: %v", line, err)
		}
		rows = append(rows, row)
		lines = append(lines, line)
	}
	return rows, lines
}

// keys are the row's keys in file order.
func keys(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestLoopBoundaryRealClaude(t *testing.T) {
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
	sc, err := modelserver.LoadScript(filepath.Join(repo, "plugins", "loop-boundary", "e2e", "loop.json"), nil)
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
	mod := filepath.Join(repo, "plugins", "loop-boundary")
	ledger := filepath.Join(work, "tmp", "loop-boundary-"+sessionID+".jsonl")
	statePath := filepath.Join(work, "tmp", "auto-state-"+runKey+".json")

	// run runs claude with args; wantFail expects a non-zero exit (an errored turn ends -p with 1).
	run := func(name string, timeout time.Duration, wantFail bool, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		full := append(args, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions",
			"--plugin-dir", mod, "--debug-file", filepath.Join(logs, name+".debug.txt"))
		cmd, err := w.Command(ctx, modelserver.Claude, bin, srv.URL(), modelserver.AgentOptions{}, full...)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err = cmd.Run()
		_ = os.WriteFile(filepath.Join(logs, name+".stdout.jsonl"), stdout.Bytes(), 0o600)
		t.Logf("%s: claude %s took %s", name, strings.Join(args, " "), time.Since(start).Round(time.Second))
		if (err != nil) != wantFail {
			t.Fatalf("%s: claude exit: %v (want failure: %v)\nstderr: %s\nlogs in %s", name, err, wantFail, stderr.String(), logs)
		}
	}

	// Run 1: a looping session. Iteration 1 arms a wakeup and ends with an
	// outcome line (boundary 1); the wakeup's iteration 2 does the same
	// (boundary 2); the wakeup's iteration 3 ends without one (a pass) and
	// arms nothing, so the -p run ends.
	run("loop", loopTimeout, false, "-p", "/loop /auto", "--session-id", sessionID)
	reqs := srv.ModelRequests(modelserver.Anthropic)
	var answers []string
	for _, r := range reqs {
		answers = append(answers, r.Answer)
	}
	wantAnswers := []string{"turn 0", "turn 1", "turn 2", "turn 3", "turn 4"}
	if !reflect.DeepEqual(answers, wantAnswers) {
		t.Fatalf("looping run: requests answered by %q, want %q (no summarizer request, one request per step)", answers, wantAnswers)
	}
	checkNearClear(t, "first request after boundary 1", reqs[2].Body, "SHIPPED-MERGE: BF-1", runKey, statePath, "/auto",
		[]string{"Starting iteration 1", "Iteration 1 merged", "/loop /auto"})
	checkNearClear(t, "first request after boundary 2", reqs[4].Body, "SHIPPED-PR: BF-2", runKey, statePath, "/auto",
		[]string{"Starting iteration 1", "Iteration 1 merged", "SHIPPED-MERGE: BF-1", "Starting iteration 2", "Iteration 2 opened"})
	for _, r := range reqs[2:] {
		if !strings.HasSuffix(strings.TrimSpace(r.LastUserText), "/auto") {
			t.Errorf("request %d: last user text %q, want it to end with the wakeup's /auto", r.Seq, r.LastUserText)
		}
	}

	rows, lines := readLedger(t, ledger)
	want := []map[string]any{
		{"event": "boundary", "accepted": true, "outcome": "SHIPPED-MERGE: BF-1", "tokensBefore": 72791.0, "tokensAfter": 45813.0, "path": "turn-complete", "nearClear": true, "loopPrompt": "/auto"},
		{"event": "boundary", "accepted": true, "outcome": "SHIPPED-PR: BF-2", "tokensBefore": 50000.0, "tokensAfter": 45900.0, "path": "turn-complete", "nearClear": true, "loopPrompt": "/auto"},
		{"event": "pass", "reason": "no-outcome", "loopPrompt": "/auto"},
	}
	if len(rows) != len(want) {
		t.Fatalf("ledger has %d rows, want %d:\n%s", len(rows), len(want), strings.Join(lines, "\n"))
	}
	turnIDs := map[string]bool{}
	for i, row := range rows {
		if row["session"] != sessionID {
			t.Errorf("row %d: session %v, want %s", i, row["session"], sessionID)
		}
		if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(row["ts"])); err != nil {
			t.Errorf("row %d: ts %v is not a timestamp", i, row["ts"])
		}
		id, _ := row["turnId"].(string)
		if id == "" || turnIDs[id] {
			t.Errorf("row %d: turnId %q missing or repeated", i, id)
		}
		turnIDs[id] = true
		for k, v := range want[i] {
			if !reflect.DeepEqual(row[k], v) {
				t.Errorf("row %d: %s = %v, want %v", i, k, row[k], v)
			}
		}
	}
	wantKeys := [][]string{
		{"ts", "session", "event", "accepted", "outcome", "tokensBefore", "tokensAfter", "path", "nearClear", "turnId", "loopPrompt"},
		{"ts", "session", "event", "accepted", "outcome", "tokensBefore", "tokensAfter", "path", "nearClear", "turnId", "loopPrompt"},
		{"ts", "session", "event", "reason", "turnId", "loopPrompt"},
	}
	for i, line := range lines {
		if got := keys(t, line); !reflect.DeepEqual(got, wantKeys[i]) {
			t.Errorf("row %d keys %v, want the seed's %v", i, got, wantKeys[i])
		}
	}

	// Run 2: the same session resumed by a new process. Its rows are reloaded
	// and kept; a loop on a prompt without a configured prefix is passed.
	run("resume", shortTimeout, false, "-p", "--resume", sessionID, "/loop 10m /sweep")
	rows2, lines2 := readLedger(t, ledger)
	if len(lines2) != 4 || !reflect.DeepEqual(lines2[:3], lines) {
		t.Fatalf("resumed run: ledger should keep the 3 earlier rows verbatim and add one:\n%s", strings.Join(lines2, "\n"))
	}
	if rows2[3]["event"] != "pass" || rows2[3]["reason"] != "prefix" || rows2[3]["loopPrompt"] != "/sweep" || rows2[3]["outcome"] != "SHIPPED-PR: BF-4" {
		t.Errorf("resumed run: row %s, want a prefix pass on /sweep", lines2[3])
	}

	// Runs 3-6, each a new process on the same session, each looping from
	// its typed /loop: the other pass cases as the real engine produces them.
	// The floor comes from userConfig in --settings (pluginConfigs).
	floor := `{"pluginConfigs":{"loop-boundary@inline":{"options":{"min_context_percent":50}}}}`
	run("floor", shortTimeout, false, "-p", "--resume", sessionID, "/loop /auto", "--settings", floor)
	run("stop", shortTimeout, false, "-p", "--resume", sessionID, "/loop /auto")
	run("subagent", shortTimeout, false, "-p", "--resume", sessionID, "/loop /auto")
	run("error", shortTimeout, true, "-p", "--resume", sessionID, "/loop /auto BF-ERR")
	rows4, lines4 := readLedger(t, ledger)
	if len(lines4) != 9 || !reflect.DeepEqual(lines4[:4], lines2) {
		t.Fatalf("pass runs: want the 4 earlier rows then 5 passes, got:\n%s", strings.Join(lines4, "\n"))
	}
	wantPasses := []map[string]any{
		{"reason": "below-floor", "outcome": "SHIPPED-MERGE: BF-5", "contextPercent": 1.0, "loopPrompt": "/auto"},
		{"reason": "loop-ended", "outcome": "AUTO-HALTED: no candidates left", "loopPrompt": "/auto"},
		{"reason": "subagent", "outcome": "SHIPPED-PR: BF-6", "loopPrompt": "/auto"},
		{"reason": "no-outcome", "loopPrompt": "/auto"},
		{"reason": "error", "loopPrompt": "/auto BF-ERR"},
	}
	for i, want := range wantPasses {
		row := rows4[4+i]
		if row["event"] != "pass" {
			t.Errorf("pass row %d: %s", i, lines4[4+i])
		}
		for k, v := range want {
			if !reflect.DeepEqual(row[k], v) {
				t.Errorf("pass row %d: %s = %v, want %v (%s)", i, k, row[k], v, lines4[4+i])
			}
		}
	}
	if id, _ := rows4[6]["agentId"].(string); id == "" {
		t.Errorf("subagent pass row has no agentId: %s", lines4[6])
	}
	lines2 = lines4

	// Run 7: a typed /compact is not the mod's: core's summarizer answers it.
	before := len(srv.ModelRequests(modelserver.Anthropic))
	run("compact", shortTimeout, false, "-p", "--resume", sessionID, "/compact keep the plan")
	after := srv.ModelRequests(modelserver.Anthropic)[before:]
	if len(after) != 1 || after[0].Answer != "rule summarize" {
		var got []string
		for _, r := range after {
			got = append(got, r.Answer)
		}
		t.Errorf("typed /compact: want one summarizer request, got %q", got)
	}
	_, lines3 := readLedger(t, ledger)
	if !reflect.DeepEqual(lines3, lines2) {
		t.Errorf("typed /compact changed the ledger:\n%s", strings.Join(lines3, "\n"))
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Errorf("model server saw unscripted requests: %q", p)
	}
}
