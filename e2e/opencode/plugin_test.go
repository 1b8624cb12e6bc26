// Package opencode tests OpenCode's harness plugin (harness/opencode, its
// own Go module) the way a user meets it: built as
// notesoup-harness-opencode into a temporary $NOTESOUP_PLUGIN_DIR, loaded
// by notesoup like any third party's plugin, over a database the pinned
// OpenCode recorded (testdata/transcripts/opencode). Without a build tag
// it runs with every `go test ./...`; cli_e2e_test.go (tag e2e) runs the
// real OpenCode.
package opencode

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
	"github.com/notesoup/notesoup/internal/testbin"
)

// pluginDir is the plugin's module, relative to the repository.
const pluginDir = "harness/opencode"

// harness is the plugin's harness name.
const harness = "opencode"

// cmdTimeout bounds one notesoup command; a hang shows up as this timeout.
const cmdTimeout = 2 * time.Minute

// allowedImports are the notesoup packages the plugin may link: the
// contract, and the public shared packages a third party may link as well
// (jsonedit, the installer's editor of opencode.json; reset, the budget
// policy's settings helpers its thresholds use) with what they link in
// turn. It never links the host, the service, a front end or another
// harness's package: it reaches notesoup only through the contract.
var allowedImports = []string{
	"github.com/notesoup/notesoup/contract",
	"github.com/notesoup/notesoup/contract/harnesspb",
	"github.com/notesoup/notesoup/contract/pluginrpc",
	"github.com/notesoup/notesoup/harness/opencode",
	"github.com/notesoup/notesoup/shared/jsonedit",
	"github.com/notesoup/notesoup/shared/reset",
	"github.com/notesoup/notesoup/shared/atomicfile",
	"github.com/notesoup/notesoup/shared/tooldef",
	"github.com/notesoup/notesoup/internal/filelock",
	"github.com/notesoup/notesoup/internal/rawread",
}

// pluginRow is what the test reads of `notesoup plugins --json`.
type pluginRow struct {
	Name, Source, Status, Error string
	Capabilities                []string
}

// sessionRow is what the test reads of `notesoup history sessions --json`.
type sessionRow struct {
	Harness, ID, Selector, Path, Title, Cwd string
}

func goBuild(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // the plugin's SQLite is pure Go
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v in %s: %v\n%s", args, dir, err, out)
	}
}

// env isolates notesoup and the plugin from the machine: fresh homes, the
// plugin from pluginDir alone, OpenCode's data under dataHome.
func env(t *testing.T, plugins, dataHome string) []string {
	var out []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "HOME", "NOTESOUP_HOME", "NOTESOUP_PLUGIN_DIR", "XDG_CACHE_HOME", "XDG_DATA_HOME", "OPENCODE_DB",
			"CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "CODEX_HOME", "PATH":
			continue
		}
		out = append(out, kv)
	}
	home := t.TempDir()
	return append(out,
		"HOME="+home,
		"NOTESOUP_HOME="+filepath.Join(home, ".notesoup"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+dataHome,
		"CLAUDE_CONFIG_DIR="+t.TempDir(),
		"PI_CODING_AGENT_DIR="+t.TempDir(),
		"CODEX_HOME="+t.TempDir(),
		"NOTESOUP_PLUGIN_DIR="+plugins,
		"PATH="+t.TempDir(),
	)
}

func TestOpenCodePluginInEveryFrontEnd(t *testing.T) {
	root := testbin.Root()
	module := filepath.Join(root, pluginDir)

	deps, err := exec.Command("go", "-C", module, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps in %s: %v", module, err)
	}
	for _, d := range strings.Fields(string(deps)) {
		if strings.HasPrefix(d, "github.com/notesoup/notesoup") && !slices.Contains(allowedImports, d) {
			t.Errorf("the plugin links %s; it may link only %v", d, allowedImports)
		}
	}
	// Its SQLite stays out of notesoup's own module.
	mainDeps, err := exec.Command("go", "-C", root, "list", "-deps", "./cmd/notesoup").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/notesoup: %v", err)
	}
	if strings.Contains(string(mainDeps), "sqlite") {
		t.Errorf("notesoup itself links an SQLite package")
	}

	plugins, notesoup := buildRelease(t, root)
	plugin := filepath.Join(plugins, "notesoup-harness-"+harness)

	// OpenCode's data directory, as the pinned CLI left it.
	dataHome := t.TempDir()
	db := filepath.Join(dataHome, "opencode", "opencode.db")
	raw, err := os.ReadFile(filepath.Join(root, "testdata", "transcripts", "opencode", "tools", "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil || os.WriteFile(db, raw, 0o600) != nil {
		t.Fatalf("writing %s", db)
	}
	environ := env(t, plugins, dataHome)
	const (
		prompt = "Read notes.txt, print a greeting and list the directory"
		answer = "Done: the note says to buy milk, the greeting printed, and the directory holds notes.txt."
		title  = "Reading the shopping note"
	)

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
		if r := rows[i]; r.Status != "ok" || r.Source != plugin || !slices.Contains(r.Capabilities, "decode") {
			t.Errorf("%s: %+v; want status ok from %s", harness, r, plugin)
		}
	})
	var selector string
	t.Run("history sessions lists the session", func(t *testing.T) {
		var rows []sessionRow
		if err := json.Unmarshal([]byte(run(t, "history", "sessions", "--harness", harness, "--json")), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Title != title || rows[0].Path != db || rows[0].Cwd != "/tmp/notesoup-record/opencode-tools/work" {
			t.Fatalf("history sessions: %+v; want the one session titled %q in %s", rows, title, db)
		}
		selector = rows[0].Selector
		if out := run(t, "history", "sessions"); !strings.Contains(lineWith(out, selector), title) {
			t.Errorf("history sessions:\n%s\nwant a line for %s titled %q", out, selector, title)
		}
	})
	if selector == "" {
		t.Fatal("no selector to go on with")
	}
	t.Run("history list shows its messages and tools", func(t *testing.T) {
		out := run(t, "history", "list", "--session", selector)
		for _, want := range []string{prompt, answer, "hello from notesoup", selector + ":1"} {
			if !strings.Contains(out, want) {
				t.Errorf("history list --session %s:\n%s\nwant %q", selector, out, want)
			}
		}
		if strings.Contains(out, "I should look at the file first") {
			t.Errorf("history list shows the reasoning:\n%s", out)
		}
	})
	t.Run("search finds it", func(t *testing.T) {
		out := run(t, "search", "greeting", "--paths") // the session file is shown when asked
		if !strings.Contains(out, selector) || !strings.Contains(out, db) {
			t.Errorf("search greeting:\n%s\nwant %s (%s)", out, selector, db)
		}
	})
	t.Run("the MCP server's history_list reads it", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
		defer cancel()
		cmd := exec.Command(notesoup, "mcp", "--cwd", t.TempDir())
		cmd.Env = environ
		client := mcp.NewClient(&mcp.Implementation{Name: "opencode-test", Version: "1"}, nil)
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
			t.Errorf("history_list %s (error %v):\n%s\nwant the prompt and the answer", selector, res.IsError, text.String())
		}
	})
	// Nothing the commands did created files beside the database.
	if names, err := os.ReadDir(filepath.Dir(db)); err != nil || len(names) != 1 {
		t.Errorf("OpenCode's data directory holds %v (%v); want only opencode.db", names, err)
	}
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
