//go:build e2e

// Package dream runs `notesoup dream` end to end with each pinned harness
// CLI (e2e/install.sh) against the scripted model server on 127.0.0.1, in
// an isolated HOME: the first model request must carry the dream prompt
// and the notes tools, the scripted tool calls must change the notes as
// the playbook says (merge, delete, edit the index, a global note), and
// `notesoup dream --undo` must put every byte back.
//
// Run with: make e2e-dream (builds the Claude mod and the Pi extension
// first), or go test -tags e2e -count=1 ./e2e/dream/ after make
// plugin-claude pi-build.
package dream

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"

	"github.com/notesoup/notesoup/dream"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/testkit/modelserver"
)

// runTimeout bounds one harness run: a scripted pass takes seconds to a
// minute; the CLIs retry a broken server for minutes, so a hang shows up
// as this timeout instead of a stalled CI.
const runTimeout = 4 * time.Minute

// report is the scripted pass's final text.
const report = "DREAM-REPORT: notes before 3, after 2 (+1 global)."

// notesoupBin is notesoup built once for the package (the full build: the
// Codex run starts its MCP server from it).
var notesoupBin string

func TestMain(m *testing.M) {
	// NOTESOUP_E2E_DREAM_BIN runs the tests against a notesoup built
	// elsewhere (another commit, a release) instead of building one.
	if bin := os.Getenv("NOTESOUP_E2E_DREAM_BIN"); bin != "" {
		notesoupBin = bin
		os.Exit(m.Run())
	}
	bin, err := testbin.Notesoup()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/notesoup: %v\n", err)
		os.Exit(1)
	}
	notesoupBin = bin
	testbin.Main(m) // runs the tests, then removes the build
}

func repoRoot() string {
	root, _ := filepath.Abs("../..")
	return root
}

// seed is the notes the pass starts from: two notes on one topic, an
// index naming both, and a global note, written through the notes store.
var seed = map[string]string{
	"index.md":    "# Index\n- auth.md: tokens\n- auth-old.md: refresh tokens\n",
	"auth.md":     "# Auth\nTokens expire after 1h.\n",
	"auth-old.md": "# Refresh tokens\nRefresh tokens live 30 days.\n",
	"~/editor.md": "# Editor\nvim, no plugins\n",
}

// harnessCase is how one harness is wired for the run.
type harnessCase struct {
	h        modelserver.Harness
	protocol modelserver.Protocol
	// env points notesoup dream at the pinned CLI and its notesoup plugin.
	env  func(t *testing.T, cli string) []string
	opts modelserver.AgentOptions
	// toolName is how the notes_write tool is named in the request.
	toolName string
}

var cases = []harnessCase{
	{
		h: modelserver.Claude, protocol: modelserver.Anthropic, toolName: "mcp__notesoup__notes_write",
		env: func(t *testing.T, cli string) []string {
			mod := filepath.Join(repoRoot(), "plugins", "claude")
			requireFiles(t, mod, "make plugin-claude", "bin/notesoup", "bin/notesoup-host", "hooks/tools.gen.ts")
			return []string{"NOTESOUP_CLAUDE_BIN=" + cli, "NOTESOUP_CLAUDE_PLUGIN_DIR=" + mod}
		},
	},
	{
		h: modelserver.Codex, protocol: modelserver.Responses, toolName: "notes_write",
		env: func(t *testing.T, cli string) []string { return []string{"NOTESOUP_CODEX_BIN=" + cli} },
	},
	{
		h: modelserver.Pi, protocol: modelserver.Chat, toolName: "notes_write",
		env: func(t *testing.T, cli string) []string {
			ext := filepath.Join(repoRoot(), "plugins", "pi")
			requireFiles(t, ext, "make pi-build", "bin/notesoup", "generated/tools.json")
			return []string{"NOTESOUP_PI_BIN=" + cli, "NOTESOUP_PI_EXTENSION=" + ext}
		},
		// pi -p takes its provider from the settings (the dream names
		// none); no retries of the scripted server.
		opts: modelserver.AgentOptions{PiContextWindow: 200000,
			PiSettings: `{"defaultProvider":"fake","defaultModel":"` + modelserver.DefaultModel + `","retry":{"enabled":false}}`},
	},
}

func requireFiles(t *testing.T, dir, make string, files ...string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("%s is not built (%v); run %s", dir, err, make)
		}
	}
}

// TestDreamEndToEnd runs a scripted pass with each real CLI, then undoes it.
func TestDreamEndToEnd(t *testing.T) {
	for _, tc := range cases {
		t.Run(string(tc.h), func(t *testing.T) {
			cli, err := modelserver.CLIPath(repoRoot(), tc.h)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := modelserver.NewWorkspace(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(ws.Dir, "notesoup")
			sp, err := notes.Open(home).Space(ws.Work)
			if err != nil {
				t.Fatal(err)
			}
			for name, text := range seed {
				if _, err := sp.Write(notes.WriteRequest{Name: name, Content: text}); err != nil {
					t.Fatal(err)
				}
			}
			orig := notesTree(t, home)

			sc, err := modelserver.LoadScript(filepath.Join(repoRoot(), "e2e", "scenarios", "dream-"+string(tc.h)+".json"), map[string]string{"WORK": ws.Work})
			if err != nil {
				t.Fatal(err)
			}
			srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(ws.Dir, "requests.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			env := append([]string{"NOTESOUP_HOME=" + home}, tc.env(t, cli)...)

			stdout, stderr := notesoup(t, ws, tc, srv, env, "dream", "--harness", string(tc.h), "--cwd", ws.Work, "--timeout", runTimeout.String())
			reqs := srv.ModelRequests(tc.protocol)
			if len(reqs) == 0 {
				t.Fatalf("no model request reached the server\nstderr:\n%s", stderr)
			}
			first := string(reqs[0].Body)
			for _, want := range []string{dream.PromptMarker, "# Dream pass", "Consolidating notes", tc.toolName, "history_list"} {
				if !strings.Contains(first, want) {
					t.Errorf("the first request lacks %q", want)
				}
			}
			if p := srv.Problems(); len(p) > 0 {
				t.Errorf("the model server saw unscripted requests: %v", p)
			}
			if !strings.Contains(stdout, report) {
				t.Errorf("stdout does not carry the pass's report %q:\n%s\nstderr:\n%s", report, stdout, stderr)
			}
			if strings.Contains(stdout, "Taking stock") {
				t.Errorf("stdout carries progress, not only the report:\n%s", stdout)
			}

			// The notes changed as the script's tool calls said.
			mid := readNotes(t, sp)
			want := map[string]string{
				"index.md":         "# Index\n- auth.md: tokens and refresh tokens\n",
				"auth.md":          "# Auth\nTokens expire after 1h.\nRefresh tokens live 30 days (merged from auth-old.md).\n",
				"~/editor.md":      seed["~/editor.md"],
				"~/dream-style.md": "# Style\nShort sentences.\n",
			}
			for name, text := range want {
				if mid[name] != text {
					t.Errorf("after the pass %s is %q, want %q", name, mid[name], text)
				}
			}
			if _, ok := mid["auth-old.md"]; ok || len(mid) != len(want) {
				t.Errorf("after the pass the notes are %v, want exactly %v", keys(mid), keys(want))
			}
			if t.Failed() || testing.Verbose() {
				t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if t.Failed() {
				return
			}

			// --undo puts every byte back.
			out, errOut := notesoup(t, ws, tc, srv, env, "dream", "--undo", "--cwd", ws.Work)
			if !strings.Contains(out, "restored") {
				t.Errorf("undo said %q (stderr %q)", out, errOut)
			}
			same(t, notesTree(t, home), orig)
		})
	}
}

// notesoup runs the built notesoup in ws with the harness's environment
// (the CLI's provider pointed at srv) and returns stdout and stderr.
func notesoup(t *testing.T, ws *modelserver.Workspace, tc harnessCase, srv *modelserver.Server, env []string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout+time.Minute)
	defer cancel()
	opts := tc.opts
	opts.Env = env
	cmd, err := ws.Command(ctx, tc.h, notesoupBin, srv.URL(), opts, args...)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("notesoup %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

func readNotes(t *testing.T, sp *notes.Space) map[string]string {
	t.Helper()
	snap, err := sp.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range snap.Notes {
		out[n.Name] = n.Content
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// notesTree is every file and folder of the notes folders under home
// (not the dream's own records, not the lock files), with its mode and
// bytes.
func notesTree(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, top := range []string{"projects", "global"} {
		root := filepath.Join(home, top)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == root {
				return nil
			}
			if b := d.Name(); b == ".lock" || b == ".dream.lock" {
				return nil
			}
			rel, _ := filepath.Rel(home, p)
			fi, _ := os.Lstat(p)
			if d.IsDir() {
				out[rel] = fmt.Sprintf("dir %o", fi.Mode().Perm())
				return nil
			}
			data, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("%s %o %q", fi.Mode().Type(), fi.Mode().Perm(), data)
			return nil
		})
	}
	return out
}

func same(t *testing.T, got, want map[string]string) {
	t.Helper()
	for p, w := range want {
		if got[p] != w {
			t.Errorf("after undo %s is %q, want %q", p, got[p], w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("after undo %s exists (%q), want it gone", p, got[p])
		}
	}
}
