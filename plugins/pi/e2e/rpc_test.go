//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// rpcEvent is one line pi --mode rpc writes: a response or an event.
type rpcEvent struct {
	Type    string          `json:"type"`
	Command string          `json:"command,omitempty"`
	Success *bool           `json:"success,omitempty"`
	Error   string          `json:"error,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

// runRPC starts pi in RPC mode, sends the commands (one JSON object per
// line), reads events, after each one sending what next returns, until next
// says the run is over; then closes stdin (pi shuts down) and returns every
// event.
func (e *env) runRPC(t *testing.T, commands []string, next func([]rpcEvent) (send []string, done bool)) []rpcEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	args := []string{"--mode", "rpc", "-nc", "--provider", "fake", "--model", modelserver.DefaultModel, "-e", e.ext}
	cmd, err := e.w.Command(ctx, modelserver.Pi, e.pi, e.srv.URL(), modelserver.AgentOptions{
		PiContextWindow: contextWindow,
		PiSettings:      `{"retry":{"enabled":false}}`,
		Env:             []string{"NOTESOUP_HOME=" + e.notesHome},
	}, args...)
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		r := bufio.NewReader(stdout)
		for {
			// Split on \n only: pi's JSON may hold U+2028 (pi.md §1.3).
			b, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(b)) > 0 {
				lines <- b
			}
			if err != nil {
				return
			}
		}
	}()
	for _, c := range commands {
		if _, err := io.WriteString(stdin, c+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	var events []rpcEvent
	deadline := time.After(runTimeout)
read:
	for {
		select {
		case b, ok := <-lines:
			if !ok {
				break read
			}
			var ev rpcEvent
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatalf("pi rpc: bad line %q: %v", b, err)
			}
			ev.Raw = append(json.RawMessage(nil), b...)
			events = append(events, ev)
			if ev.Type == "response" && ev.Success != nil && !*ev.Success {
				t.Fatalf("pi rpc: command %s failed: %s", ev.Command, ev.Error)
			}
			send, done := next(events)
			for _, c := range send {
				if _, err := io.WriteString(stdin, c+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			if done {
				break read
			}
		case <-deadline:
			t.Fatalf("pi rpc: run did not finish within %v\nstderr:\n%s", runTimeout, stderr.String())
		}
	}
	stdin.Close()
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("pi rpc: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Logf("pi stderr:\n%s", stderr.String())
	return events
}

func count(events []rpcEvent, typ string) int {
	n := 0
	for _, e := range events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// until sends nothing more and ends when done holds.
func until(done func([]rpcEvent) bool) func([]rpcEvent) ([]string, bool) {
	return func(ev []rpcEvent) ([]string, bool) { return nil, done(ev) }
}

func prompt(text string) string {
	b, _ := json.Marshal(map[string]string{"type": "prompt", "message": text})
	return string(b)
}

func TestRPCResetContinuesOnce(t *testing.T) {
	e := setup(t, "reset.json", map[string]string{"TERMINATE": "false"})
	// Two runs: the prompt's (ends at empty_brain) and the continuation's.
	events := e.runRPC(t, []string{prompt(firstPrompt)}, until(func(ev []rpcEvent) bool { return count(ev, "agent_end") >= 2 }))
	if p := e.srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	bodies := e.bodies()
	if len(bodies) != 4 {
		t.Fatalf("model requests = %d, want 4", len(bodies))
	}
	if n := count(events, "compaction_end"); n != 1 {
		t.Errorf("compaction_end events = %d, want 1", n)
	}
	if strings.Contains(bodies[2], "grocery errand") || !strings.Contains(bodies[2], "buy oat milk, not cow milk") {
		t.Errorf("continuation request is not the clean boot window:\n%.3000s", bodies[2])
	}
	if !strings.Contains(bodies[3], "grocery errand") {
		t.Errorf("history_list did not find the prompt from before the reset")
	}
	comps := ofType(e.entries(t), "compaction")
	if len(comps) != 1 || comps[0]["fromHook"] != true {
		t.Errorf("want one extension compaction entry, got %v", comps)
	}
}

func TestRPCBudgetWarningThenHardPoint(t *testing.T) {
	e := setup(t, "budget.json", nil)
	events := e.runRPC(t, []string{prompt("Work through the backlog")}, until(func(ev []rpcEvent) bool { return count(ev, "agent_end") >= 2 }))
	if p := e.srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	bodies := e.bodies()
	if len(bodies) != 4 {
		t.Fatalf("model requests = %d, want 4 (three before the hard point, one continuation)", len(bodies))
	}
	checkBudget(t, e, bodies)
	_ = events
}

// TestRPCPiOwnCompactionAnswered: Pi's own compaction (here the RPC compact
// command) is answered with the boot instead of a summary; no summarizer
// request reaches the model server.
func TestRPCPiOwnCompactionAnswered(t *testing.T) {
	e := setup(t, "reset.json", map[string]string{"TERMINATE": "false"})
	sent := false
	events := e.runRPC(t, []string{prompt("Say hello")}, func(ev []rpcEvent) ([]string, bool) {
		// After the first run (it ends at empty_brain's reset and its
		// continuation), ask Pi to compact by itself.
		if count(ev, "agent_end") >= 2 && !sent {
			sent = true
			return []string{`{"type":"compact"}`}, false
		}
		return nil, sent && count(ev, "compaction_end") >= 2
	})
	if p := e.srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	for _, r := range e.srv.Requests() {
		if strings.Contains(r.Answer, "pi-summarizer") {
			t.Errorf("pi asked the model for a summary: request %d", r.Seq)
		}
	}
	es := e.entries(t)
	sid, _ := es[0]["id"].(string)
	comps := ofType(es, "compaction")
	if len(comps) != 2 {
		t.Fatalf("compaction entries = %d, want 2 (ours, then Pi's own)", len(comps))
	}
	own := comps[1]
	summary, _ := own["summary"].(string)
	if own["fromHook"] != true || !strings.Contains(summary, `<notesoup-boot window="pi:`+sid+`:2">`) || !strings.Contains(summary, "buy oat milk, not cow milk") {
		t.Errorf("Pi's own compaction was not answered with the window-2 boot: fromHook=%v\n%s", own["fromHook"], summary)
	}
	_ = events
}
