//go:build e2e

package opencode

// The real-CLI test of the budget warning: with notesoup installed, the
// plugin's tool.execute.after hook asks `notesoup limits` (the external
// plugin's Thresholds, from the model's limit in OPENCODE_CONFIG_CONTENT)
// and, once a finished step of the window reaches the warning point, adds
// the warning to one tool result, once per window.

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/testkit/modelserver"
)

func TestOpenCodeBudgetWarning(t *testing.T) {
	repo := testbin.Root()
	ocBin := openCodeCLI(t, repo)
	plugins, notesoup := buildRelease(t, repo)

	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ns := []string{"NOTESOUP_HOME=" + filepath.Join(w.Dir, "notesoup"), "NOTESOUP_PLUGIN_DIR=" + plugins}
	sc, err := modelserver.LoadScript(filepath.Join("testdata", "budget.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(w.Dir, "requests.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	env := append(Env(w.Home, w.Tmp, srv.URL()), ns...)
	run := func(name string, stdin string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = w.Work, env, strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, stderr.String())
		}
		return stdout.String()
	}
	run(notesoup, "", "install", "opencode")
	// The point the plugin will use: OpenCode's (context 32000 less the
	// model's output 4096) less notesoup's default margins.
	limits := run(notesoup, "", "limits", "--harness", "opencode", "--model", "fake/fake-model", "--json")
	var l struct {
		Limits struct{ Native, Warning int64 }
	}
	if err := json.Unmarshal([]byte(limits), &l); err != nil || l.Limits.Native != 27904 || l.Limits.Warning != 3328 {
		t.Fatalf("limits from the OpenCode config (%v):\n%s", err, limits)
	}
	run(ocBin, "Check the notes.\n", "run", "--format", "json")
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("off-script requests: %q", p)
	}
	var main []modelserver.Request
	for _, r := range srv.ModelRequests(modelserver.Chat) {
		if !strings.Contains(r.Answer, "rule") { // the title generator is answered by a rule
			main = append(main, r)
		}
	}
	if len(main) != 4 {
		t.Fatalf("%d main-agent requests, want 4", len(main))
	}
	// Each step reports 5020 tokens, past the warning point 3328; OpenCode
	// records a step's tokens when it finishes, after its tools ran, so
	// the first tool result is measured against nothing, the second
	// carries the warning, and the third (same window) does not.
	const warning = "notesoup budget warning:"
	for i, want := range []int{0, 0, 1, 1} {
		text := main[i].Text()
		if n := strings.Count(text, warning); n != want {
			t.Errorf("request %d carries %d warnings, want %d:\n%.3000s", i+1, n, want, text)
		}
		if want > 0 && !strings.Contains(text, "OpenCode will compact the session on its own") {
			t.Errorf("request %d: the warning is not OpenCode's wording", i+1)
		}
	}
}
