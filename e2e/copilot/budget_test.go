//go:build e2e

package copilot

// What the budget would need from the Copilot CLI (1.0.102), checked with
// the real CLI: a hook whose answer reaches the model after a tool
// (postToolUse's additionalContext does), and the point where it compacts
// on its own (a background compaction, trigger "threshold", once its own
// token estimate reaches about 0.80 of the prompt-token limit, as its
// SDK's backgroundCompactionThreshold documents). What it lacks, so
// notesoup still resolves no point and gives no warning: its estimate is
// written nowhere a hook could read it in time (session.usage_info is an
// ephemeral event; events.jsonl gets the estimate only at a compaction
// and at shutdown).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// TestCopilotPostToolUseContextReachesModel: a postToolUse command hook's
// additionalContext is in the request after the tool, not before it; the
// hook's input names the session, the tool and its result, and no token
// count.
func TestCopilotPostToolUseContextReachesModel(t *testing.T) {
	e := newEnv(t)
	hook := filepath.Join(e.w.Dir, "hook.sh")
	input := filepath.Join(e.w.Dir, "hook-input.json")
	const mark = "post-tool-use-mark-5b1"
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat > '"+input+"'\necho '{\"additionalContext\":\""+mark+"\"}'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, e, hook)
	srv := e.run(t, "posttooluse.json", nil, "-p", "Print hi.")
	reqs := srv.ModelRequests(modelserver.Chat)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, want := range []bool{false, true} {
		if got := strings.Contains(reqs[i].Text(), mark); got != want {
			t.Errorf("request %d carries the hook's context: %v, want %v", i+1, got, want)
		}
	}
	var in map[string]any
	b, _ := os.ReadFile(input)
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("hook input %q: %v", b, err)
	}
	for _, k := range []string{"sessionId", "cwd", "toolName", "toolResult"} {
		if _, ok := in[k]; !ok {
			t.Errorf("hook input lacks %s: %s", k, b)
		}
	}
	if strings.Contains(strings.ToLower(string(b)), "token") {
		t.Errorf("hook input carries a token count after all: %s", b)
	}
}

// TestCopilotThresholdCompactionPoint: with a 16,000-token prompt limit, a
// session whose estimate stays near 0.75 of it is not compacted, and one
// whose estimate passes 0.80 is, in the background (trigger "threshold"),
// before the truncation at the limit.
func TestCopilotThresholdCompactionPoint(t *testing.T) {
	const limit = 16000
	for _, tc := range []struct {
		numbers int // the tool prints 1..numbers: the conversation's size
		compact bool
	}{
		{numbers: 800, compact: false},
		{numbers: 1200, compact: true},
	} {
		t.Run(fmt.Sprint(tc.numbers), func(t *testing.T) {
			e := newEnv(t)
			script := fmt.Sprintf(`{"name":"copilot-threshold","usage":{"input_tokens":3000,"output_tokens":20},"turns":[`+
				`{"text":"Printing.","tool_calls":[{"name":"bash","input":{"command":"seq 1 %d","description":"Print","mode":"sync"}}]},`+
				`{"text":"Done."},{"text":"<overview>Printed numbers.</overview>"},{"text":"<overview>Printed numbers.</overview>"}]}`, tc.numbers)
			sc, err := modelserver.ParseScript([]byte(script), nil)
			if err != nil {
				t.Fatal(err)
			}
			srv, err := modelserver.Start(modelserver.Config{Script: sc})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			cmd, err := e.w.Command(ctx, modelserver.Copilot, e.copilotBin, srv.URL(),
				modelserver.AgentOptions{Env: []string{fmt.Sprintf("COPILOT_PROVIDER_MAX_PROMPT_TOKENS=%d", limit)}},
				"-p", "Print the numbers.", "--allow-all", "--no-auto-update")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("copilot: %v\n%s", err, out.String())
			}
			var start, shutdown *struct {
				CurrentTokens int64  `json:"currentTokens"`
				TokenLimit    int64  `json:"tokenLimit"`
				Trigger       string `json:"trigger"`
			}
			files, _ := filepath.Glob(filepath.Join(e.w.Home, ".copilot", "session-state", "*", "events.jsonl"))
			if len(files) != 1 {
				t.Fatalf("sessions %v, want 1", files)
			}
			data, _ := os.ReadFile(files[0])
			for _, line := range bytes.Split(data, []byte("\n")) {
				var ev struct {
					Type string          `json:"type"`
					Data json.RawMessage `json:"data"`
				}
				if json.Unmarshal(line, &ev) != nil {
					continue
				}
				switch ev.Type {
				case "session.compaction_start":
					if start == nil {
						json.Unmarshal(ev.Data, &start)
					}
				case "session.shutdown":
					json.Unmarshal(ev.Data, &shutdown)
				}
			}
			if !tc.compact {
				if start != nil {
					t.Fatalf("compacted at %+v, want none", *start)
				}
				if shutdown == nil || float64(shutdown.CurrentTokens) >= 0.8*limit {
					t.Fatalf("shutdown %+v: want an estimate below 0.80 of %d", shutdown, limit)
				}
				t.Logf("no compaction at %d of %d (%.3f)", shutdown.CurrentTokens, limit, float64(shutdown.CurrentTokens)/limit)
				return
			}
			if start == nil || start.Trigger != "threshold" || start.TokenLimit != limit {
				t.Fatalf("compaction start %+v: want trigger threshold at limit %d", start, limit)
			}
			if r := float64(start.CurrentTokens) / limit; r < 0.8 || r >= 1 {
				t.Fatalf("compacted at %d of %d (%.3f): want from 0.80 below the limit", start.CurrentTokens, limit, r)
			}
			t.Logf("compaction at %d of %d (%.3f)", start.CurrentTokens, limit, float64(start.CurrentTokens)/limit)
		})
	}
}

// writeSettings writes settings.json with one postToolUse command hook.
func writeSettings(t *testing.T, e *env, hook string) {
	t.Helper()
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"postToolUse": []any{map[string]any{"type": "command", "bash": hook, "timeoutSec": 20}}}})
	if err := os.MkdirAll(e.copilotHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.copilotHome, "settings.json"), hooks, 0o600); err != nil {
		t.Fatal(err)
	}
}
