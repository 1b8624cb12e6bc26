// Package external proves the promise of docs/adding-a-harness.md: a
// harness written outside notesoup, against the contract alone, works in
// every front end once its executable is in a plugin directory. It builds
// the worked example (examples/harness-jsonl, its own Go module) into a
// temporary $NOTESOUP_PLUGIN_DIR, builds notesoup the way `make build`
// lays it out (the light bin/notesoup beside bin/notesoup-host), writes one
// session in the example's format and finds it through the plugin listing,
// the history commands, search and the MCP server.
//
// Unlike the rest of e2e/ it needs no harness CLI, so it has no build tag
// and runs with every `go test ./...`.
package external

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/internal/handover"
	"github.com/notesoup/notesoup/internal/testbin"
)

// exampleDir is the example plugin's module, relative to the repository.
const exampleDir = "examples/harness-jsonl"

// harness is the example's harness name; its executable is
// notesoup-harness-jsonl.
const harness = "jsonl"

// sessionID names the session the test writes; word is in it and in no
// other file the commands can see, so finding it proves the plugin answered.
const (
	sessionID = "2026-01-02-marmalade"
	word      = "quincemarmalade"
)

// cmdTimeout bounds one notesoup command: each starts the plugin once
// (tens of milliseconds); a hang shows up as this timeout.
const cmdTimeout = time.Minute

// allowedImports are the only notesoup packages the example may link: the
// contract, its transport and the transport's generated code.
var allowedImports = []string{
	"github.com/notesoup/notesoup/contract",
	"github.com/notesoup/notesoup/contract/harnesspb",
	"github.com/notesoup/notesoup/contract/pluginrpc",
	"github.com/notesoup/notesoup/examples/harness-jsonl",
}

// pluginRow is what the test reads of one row of `notesoup plugins --json`.
type pluginRow struct {
	Name, Source, Status, Error string
	Capabilities                []string
}

// goBuild runs go build in dir and fails the test with its output.
func goBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v in %s: %v\n%s", args, dir, err, out)
	}
}

// env isolates notesoup from the machine: every home is a fresh temporary
// directory (the three built-in harnesses' are empty), plugins come from
// pluginDir alone and the example's sessions from jsonlHome.
func env(t *testing.T, pluginDir, jsonlHome string) []string {
	var out []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HOME", "NOTESOUP_HOME", "NOTESOUP_PLUGIN_DIR", "XDG_CACHE_HOME", "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "CODEX_HOME", "JSONL_HARNESS_HOME", "PATH":
			continue
		}
		out = append(out, kv)
	}
	home := t.TempDir()
	return append(out,
		"HOME="+home,
		"NOTESOUP_HOME="+filepath.Join(home, ".notesoup"), // its plugins directory does not exist
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"CLAUDE_CONFIG_DIR="+t.TempDir(),
		"PI_CODING_AGENT_DIR="+t.TempDir(),
		"CODEX_HOME="+t.TempDir(),
		"NOTESOUP_PLUGIN_DIR="+pluginDir,
		"JSONL_HARNESS_HOME="+jsonlHome,
		// Nothing on PATH: notesoup must find notesoup-host beside itself
		// and the plugin in its directory, as installed.
		"PATH="+t.TempDir(),
	)
}

func TestExamplePluginInEveryFrontEnd(t *testing.T) {
	root := testbin.Root()
	example := filepath.Join(root, exampleDir)

	// The example is what a third party would write: it links the contract
	// and its transport, nothing else of notesoup.
	deps, err := exec.Command("go", "-C", example, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps in %s: %v", example, err)
	}
	for _, d := range strings.Fields(string(deps)) {
		if strings.HasPrefix(d, "github.com/notesoup/notesoup") && !slices.Contains(allowedImports, d) {
			t.Errorf("the example links %s; it may link only %v", d, allowedImports)
		}
	}

	pluginDir, bin := t.TempDir(), t.TempDir()
	plugin := filepath.Join(pluginDir, "notesoup-harness-"+harness)
	goBuild(t, example, "-o", plugin, ".")
	notesoup := filepath.Join(bin, "notesoup")
	goBuild(t, root, "-tags", "light", "-o", notesoup, "./cmd/notesoup")
	goBuild(t, root, "-o", filepath.Join(bin, handover.HostBinary), "./cmd/notesoup")

	jsonlHome := t.TempDir()
	session := filepath.Join(jsonlHome, "sessions", sessionID+".jsonl")
	const (
		prompt = "which jam goes with " + word + " toast?"
		answer = "Any, but " + word + " is already a jam."
	)
	lines := []map[string]string{
		{"role": "user", "text": prompt, "ts": "2026-01-02T09:00:00Z"},
		{"role": "assistant", "text": answer, "ts": "2026-01-02T09:00:05Z"},
	}
	var content []byte
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		content = append(append(content, b...), '\n')
	}
	if err := os.MkdirAll(filepath.Dir(session), 0o700); err != nil || os.WriteFile(session, content, 0o600) != nil {
		t.Fatalf("writing %s", session)
	}
	environ := env(t, pluginDir, jsonlHome)
	selector := harness + ":" + sessionID

	run := func(t *testing.T, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, notesoup, args...)
		cmd.Env = environ
		return testbin.Expect(t, cmd, "", "")
	}

	t.Run("plugins lists it from the plugin directory", func(t *testing.T) {
		var rows []pluginRow
		if err := json.Unmarshal([]byte(run(t, "plugins", "--json")), &rows); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rows, func(r pluginRow) bool { return r.Name == harness })
		if i < 0 {
			t.Fatalf("plugins lists %+v, no %s", rows, harness)
		}
		if r := rows[i]; r.Status != "ok" || r.Source != plugin || !slices.Contains(r.Capabilities, contract.CapRawSearch) {
			t.Errorf("%s: %+v; want status ok from %s with raw_search", harness, r, plugin)
		}
	})
	t.Run("history sessions lists the session", func(t *testing.T) {
		out := run(t, "history", "sessions")
		line := lineWith(out, selector)
		if line == "" || !strings.Contains(line, prompt) {
			t.Errorf("history sessions:\n%s\nwant a line for %s titled %q", out, selector, prompt)
		}
	})
	t.Run("history list shows its messages", func(t *testing.T) {
		out := run(t, "history", "list", "--session", selector)
		for _, want := range []string{prompt, answer, "jsonl:" + sessionID + ":1"} {
			if !strings.Contains(out, want) {
				t.Errorf("history list --session %s:\n%s\nwant %q", selector, out, want)
			}
		}
	})
	t.Run("search finds it", func(t *testing.T) {
		out := run(t, "search", word, "--paths") // the session file is shown when asked
		if !strings.Contains(out, selector) || !strings.Contains(out, session) {
			t.Errorf("search %s:\n%s\nwant %s (%s)", word, out, selector, session)
		}
	})
	t.Run("the MCP server's history_list reads it", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
		defer cancel()
		cmd := exec.Command(notesoup, "mcp", "--cwd", t.TempDir())
		cmd.Env = environ
		client := mcp.NewClient(&mcp.Implementation{Name: "external-test", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "history_list", Arguments: map[string]any{"session": selector}})
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if res.IsError || !strings.Contains(text.String(), prompt) || !strings.Contains(text.String(), answer) {
			t.Errorf("history_list %s (error %v):\n%s\nwant both messages", selector, res.IsError, text.String())
		}
	})
}

// lineWith returns the first line of out holding s, or "".
func lineWith(out, s string) string {
	for line := range strings.Lines(out) {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
