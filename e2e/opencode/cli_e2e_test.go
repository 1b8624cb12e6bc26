//go:build e2e

// The real-CLI test: run with `go test -tags e2e ./e2e/opencode/` after
// e2e/install.sh. It starts the pinned OpenCode against the scripted model
// server in an isolated HOME and checks that a turn with a tool call
// completes: the tool ran, its result went back to the model, and the
// session landed in OpenCode's SQLite database.

package opencode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/testkit/modelserver"
)

// cliTimeout bounds one OpenCode run: a scripted run takes seconds, and a
// client retrying a broken server would take minutes, so a hang shows up
// as this timeout rather than as a stuck test.
const cliTimeout = 3 * time.Minute

// runEvent is what the test reads of one line of `opencode run --format
// json`.
type runEvent struct {
	Type string `json:"type"`
	Part struct {
		Type  string `json:"type"`
		Tool  string `json:"tool"`
		Text  string `json:"text"`
		State struct {
			Status string `json:"status"`
			Output string `json:"output"`
		} `json:"state"`
	} `json:"part"`
}

func TestOpenCodeRunsAScriptedToolTurn(t *testing.T) {
	repo := testbin.Root()
	bin := openCodeCLI(t, repo)
	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Work, "notes.txt"), []byte("buy milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := modelserver.LoadScript(filepath.Join(repo, "e2e", "scenarios", "opencode-tools.json"), map[string]string{"WORK": w.Work})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(w.Dir, "requests.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	const prompt = "Read notes.txt, print a greeting and list the directory"
	cmd := exec.CommandContext(ctx, bin, "run", "--format", "json")
	cmd.Dir = w.Work
	cmd.Env = Env(w.Home, w.Tmp, srv.URL())
	cmd.Stdin = strings.NewReader(prompt + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("opencode run: %v\n%s", err, stderr.String())
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("off-script requests: %q", p)
	}
	if srv.TurnsUsed() != len(sc.Turns) {
		t.Fatalf("used %d of %d turns", srv.TurnsUsed(), len(sc.Turns))
	}

	// The model's side: after the read call, the next main-agent request
	// ends with its result, and the result holds the file's content.
	var main []modelserver.Request
	for _, r := range srv.ModelRequests(modelserver.Chat) {
		if !strings.Contains(r.Answer, "rule") { // the title generator's request is a rule's
			main = append(main, r)
		}
	}
	if len(main) != len(sc.Turns) {
		t.Fatalf("%d main-agent requests, want %d", len(main), len(sc.Turns))
	}
	if !main[1].LastIsToolResult {
		t.Fatalf("second request does not end with a tool result")
	}
	msgs, err := main[len(main)-1].Messages()
	if err != nil {
		t.Fatal(err)
	}
	var sawCall, sawResult bool
	for _, m := range msgs {
		sawCall = sawCall || m.Role == "assistant" && strings.HasPrefix(m.Text, "call read")
		sawResult = sawResult || m.Role == "tool" && strings.Contains(m.Text, "buy milk")
	}
	if !sawCall || !sawResult {
		t.Fatalf("final request: read call seen %v, its result seen %v; messages %q", sawCall, sawResult, msgs)
	}

	// OpenCode's side: the JSON event stream reports each tool completed
	// with its real output, and the final answer.
	outputs := map[string]string{}
	var texts []string
	sc2 := bufio.NewScanner(&stdout)
	sc2.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc2.Scan() {
		var ev runEvent
		if err := json.Unmarshal(sc2.Bytes(), &ev); err != nil {
			t.Fatalf("opencode run --format json wrote a line that is not JSON: %q", sc2.Text())
		}
		switch ev.Type {
		case "tool_use":
			if ev.Part.State.Status != "completed" {
				t.Errorf("tool %s ended %q, want completed", ev.Part.Tool, ev.Part.State.Status)
			}
			outputs[ev.Part.Tool] = ev.Part.State.Output
		case "text":
			texts = append(texts, ev.Part.Text)
		}
	}
	for tool, want := range map[string]string{"read": "buy milk", "bash": "hello from notesoup", "glob": "notes.txt"} {
		if !strings.Contains(outputs[tool], want) {
			t.Errorf("tool %s output %q, want it to hold %q", tool, outputs[tool], want)
		}
	}
	if last := sc.Turns[len(sc.Turns)-1].Text; len(texts) == 0 || texts[len(texts)-1] != last {
		t.Errorf("texts %q, want the last to be %q", texts, last)
	}
	db := filepath.Join(w.Home, ".local", "share", "opencode", "opencode.db")
	if st, err := os.Stat(db); err != nil || st.Size() == 0 {
		t.Errorf("OpenCode's database %s: %v; want it written", db, err)
	}
}
