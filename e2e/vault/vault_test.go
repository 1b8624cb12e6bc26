//go:build e2e

// Package vault runs the vault's round trip end to end with each pinned
// harness CLI (e2e/install.sh) against the scripted model server on
// 127.0.0.1, in an isolated HOME: a session the real CLI recorded is copied
// by `notesoup vault sync`, its transcript is deleted, `notesoup history
// list` and `notesoup search` still find it, `notesoup vault restore` puts
// it back byte for byte, and the CLI's own resume continues it: the resumed
// model request must carry the old conversation.
//
// Run with: make e2e-vault, or go test -tags e2e -count=1 ./e2e/vault/.
package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// runTimeout bounds one CLI or notesoup run: a scripted turn takes seconds;
// the CLIs retry a broken server for minutes, so a hang shows up as this
// timeout instead of a stalled CI.
const runTimeout = 4 * time.Minute

// The conversation: the first run tells the model a word, the resumed run
// asks for it. The word and the first reply must reach the server again in
// the resumed request, which is only possible if the CLI read the restored
// transcript.
const (
	word        = "PELICAN-7"
	firstPrompt = "Remember the vault word " + word
	firstReply  = "Noted: the vault word is " + word + "."
	resumeAsk   = "What was the vault word?"
)

// claudeSID is the Claude session's id (--session-id), so the selector is
// known before anything is listed.
const claudeSID = "0b5e8a61-7c1d-4f3e-9a2b-00000000a001"

// notesoupBin is notesoup built once for the package.
var notesoupBin string

func TestMain(m *testing.M) {
	// NOTESOUP_E2E_VAULT_BIN runs the tests against a notesoup built
	// elsewhere (another commit, a release) instead of building one.
	if bin := os.Getenv("NOTESOUP_E2E_VAULT_BIN"); bin != "" {
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

// harnessCase is how one CLI records and resumes a session.
type harnessCase struct {
	h        modelserver.Harness
	protocol modelserver.Protocol
	// first is the command line of the recording run.
	first func(ws *modelserver.Workspace) []string
	// resume is the command line continuing the session whose transcript
	// is file and whose id is id.
	resume func(ws *modelserver.Workspace, id, file string) []string
}

var claudeFlags = []string{"--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions",
	"--tools", "Bash,Read,Write", "--system-prompt", "You are a coding agent under test."}

var piFlags = []string{"-nc", "--provider", "fake", "--model", modelserver.DefaultModel}

var cases = []harnessCase{
	{
		h: modelserver.Claude, protocol: modelserver.Anthropic,
		first: func(*modelserver.Workspace) []string {
			return append([]string{"-p", firstPrompt, "--session-id", claudeSID}, claudeFlags...)
		},
		resume: func(_ *modelserver.Workspace, id, _ string) []string {
			return append([]string{"-p", resumeAsk, "--resume", id}, claudeFlags...)
		},
	},
	{
		h: modelserver.Codex, protocol: modelserver.Responses,
		first: func(ws *modelserver.Workspace) []string {
			return []string{"exec", "--skip-git-repo-check", "-C", ws.Work, firstPrompt}
		},
		resume: func(ws *modelserver.Workspace, id, _ string) []string {
			return []string{"exec", "--skip-git-repo-check", "-C", ws.Work, "resume", id, resumeAsk}
		},
	},
	{
		h: modelserver.Pi, protocol: modelserver.Chat,
		first: func(*modelserver.Workspace) []string {
			return append(append([]string{"-p"}, piFlags...), firstPrompt)
		},
		resume: func(_ *modelserver.Workspace, _, file string) []string {
			return append(append([]string{"-p"}, piFlags...), "--session", file, resumeAsk)
		},
	},
}

// session is a session as `notesoup history sessions --json` prints it.
type session struct {
	Harness  string `json:"harness"`
	ID       string `json:"id"`
	Selector string `json:"selector"`
	Path     string `json:"path"`
	Title    string `json:"title"`
}

// TestVaultRoundTrip: record, sync, delete, find, restore, resume, with
// each real CLI.
func TestVaultRoundTrip(t *testing.T) {
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
			sc, err := modelserver.LoadScript(filepath.Join(repoRoot(), "e2e", "scenarios", "vault-"+string(tc.h)+".json"), map[string]string{"WORK": ws.Work})
			if err != nil {
				t.Fatal(err)
			}
			srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(ws.Dir, "requests.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			// notesoup runs with the CLI's HOME (and CODEX_HOME), so it reads
			// the sessions the CLI wrote; its own home and caches are private
			// to the test.
			nsEnv := []string{"NOTESOUP_HOME=" + filepath.Join(ws.Dir, "notesoup"), "XDG_CACHE_HOME=" + filepath.Join(ws.Dir, "cache"),
				"XDG_CONFIG_HOME=" + filepath.Join(ws.Dir, "config"), "XDG_DATA_HOME=" + filepath.Join(ws.Dir, "data")}

			mustRun(t, ws, tc.h, cli, srv, nil, tc.first(ws)...)
			files, err := ws.SessionFiles(tc.h)
			if err != nil || len(files) != 1 {
				t.Fatalf("after the first run the %s session files are %q (%v), want exactly one", tc.h, files, err)
			}
			file := files[0]
			original, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}

			out, errs, code := run(t, ws, tc.h, notesoupBin, srv, nsEnv, "history", "sessions", "--json", "--harness", string(tc.h))
			var ss []session
			if code != 0 || json.Unmarshal([]byte(out), &ss) != nil || len(ss) != 1 {
				t.Fatalf("history sessions: exit %d, %q, stderr %q; want one session", code, out, errs)
			}
			sess := ss[0]
			if tc.h == modelserver.Claude && sess.ID != claudeSID {
				t.Fatalf("claude session id %q, want %q", sess.ID, claudeSID)
			}

			out, errs, code = run(t, ws, tc.h, notesoupBin, srv, nsEnv, "vault", "sync", "--json")
			var st struct {
				New int `json:"new"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.New < 1 {
				t.Fatalf("vault sync: exit %d, %q, stderr %q; want at least one new file", code, out, errs)
			}

			// The harness deletes the transcript (as Claude Code's cleanup
			// would); the vault's copy still answers.
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			out, errs, code = run(t, ws, tc.h, notesoupBin, srv, nsEnv, "history", "sessions", "--json", "--harness", string(tc.h))
			ss = nil
			if code != 0 || json.Unmarshal([]byte(out), &ss) != nil || len(ss) != 1 || ss[0].Selector != sess.Selector || !strings.HasPrefix(ss[0].Title, "[vault] ") {
				t.Errorf("history sessions after the delete: exit %d, %q, stderr %q; want %s titled [vault]", code, out, errs, sess.Selector)
			}
			out, errs, code = run(t, ws, tc.h, notesoupBin, srv, nsEnv, "history", "list", "--session", sess.Selector, "--oldest")
			if code != 0 || !strings.Contains(out, word) {
				t.Errorf("history list --session %s after the delete: exit %d, stdout %q, stderr %q; want the entries with %s", sess.Selector, code, out, errs, word)
			}
			out, errs, code = run(t, ws, tc.h, notesoupBin, srv, nsEnv, "search", word)
			if code != 0 || !strings.Contains(out, sess.ID) {
				t.Errorf("search %s after the delete: exit %d, stdout %q, stderr %q; want session %s", word, code, out, errs, sess.ID)
			}

			out, errs, code = run(t, ws, tc.h, notesoupBin, srv, nsEnv, "vault", "restore", sess.Selector)
			if code != 0 || !strings.Contains(out, "wrote") {
				t.Fatalf("vault restore %s: exit %d, %q, stderr %q", sess.Selector, code, out, errs)
			}
			restored, err := os.ReadFile(file)
			if err != nil || !bytes.Equal(restored, original) {
				t.Fatalf("the restored %s differs from the recorded transcript (%v)", file, err)
			}

			// The CLI's own resume continues the restored session.
			before := len(srv.ModelRequests(tc.protocol))
			mustRun(t, ws, tc.h, cli, srv, nil, tc.resume(ws, sess.ID, file)...)
			reqs := srv.ModelRequests(tc.protocol)
			if len(reqs) <= before {
				t.Fatalf("the resumed run sent no model request")
			}
			last := reqs[len(reqs)-1]
			body := string(last.Body)
			for _, want := range []string{firstPrompt, firstReply, resumeAsk} {
				if !strings.Contains(body, want) {
					t.Errorf("the resumed request lacks %q (the old conversation did not come back):\n%.2000s", want, body)
				}
			}
			if p := srv.Problems(); len(p) > 0 {
				t.Errorf("the model server saw unscripted requests: %v", p)
			}
			after, err := os.ReadFile(file)
			if err != nil || !bytes.HasPrefix(after, original) || len(after) == len(original) {
				t.Errorf("the resumed run did not append to the restored %s (%v)", file, err)
			}
		})
	}
}

// run runs bin (a CLI or notesoup) in ws with the harness's environment
// and env, and returns stdout, stderr and the exit status.
func run(t *testing.T, ws *modelserver.Workspace, h modelserver.Harness, bin string, srv *modelserver.Server, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd, err := ws.Command(ctx, h, bin, srv.URL(), modelserver.AgentOptions{Env: env}, args...)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if testing.Verbose() {
		t.Logf("%s %q: %v\nstdout:\n%.3000s\nstderr:\n%.3000s", filepath.Base(bin), args, err, stdout.String(), stderr.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %q did not finish within %v\nstderr:\n%s", bin, args, runTimeout, stderr.String())
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %q: %v", bin, args, err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// mustRun runs a CLI and fails the test unless it exits 0.
func mustRun(t *testing.T, ws *modelserver.Workspace, h modelserver.Harness, bin string, srv *modelserver.Server, env []string, args ...string) {
	t.Helper()
	out, errs, code := run(t, ws, h, bin, srv, env, args...)
	if code != 0 {
		t.Fatalf("%s %q: exit %d\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), args, code, out, errs)
	}
}

// TestBackgroundSync: the Claude mod and the Pi extension, loaded into the
// real CLIs, start the vault sync at session start on their own: after one
// scripted turn the vault keeps the session without anyone running
// notesoup vault sync. A session start copies what is already there, so
// the second run's start copies the first run's session. (The Codex hook's
// sync is harness/codex's test.)
func TestBackgroundSync(t *testing.T) {
	for _, tc := range []struct {
		h    modelserver.Harness
		args func(ws *modelserver.Workspace) []string
		env  []string
	}{
		{modelserver.Claude, func(*modelserver.Workspace) []string {
			plugin := filepath.Join(repoRoot(), "plugins", "claude")
			requirePlugin(t, plugin, "make plugin-claude", "bin/notesoup", "hooks/tools.gen.ts")
			return append([]string{"-p", firstPrompt, "--plugin-dir", plugin}, claudeFlags...)
		}, nil},
		{modelserver.Pi, func(*modelserver.Workspace) []string {
			ext := filepath.Join(repoRoot(), "plugins", "pi")
			requirePlugin(t, ext, "make pi-build", "generated/tools.json", "src/common")
			return append(append([]string{"-p"}, piFlags...), "-e", ext, firstPrompt)
		}, []string{"NOTESOUP_BIN=" + notesoupBin}},
	} {
		t.Run(string(tc.h), func(t *testing.T) {
			cli, err := modelserver.CLIPath(repoRoot(), tc.h)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := modelserver.NewWorkspace(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sc, err := modelserver.LoadScript(filepath.Join(repoRoot(), "e2e", "scenarios", "vault-"+string(tc.h)+".json"), map[string]string{"WORK": ws.Work})
			if err != nil {
				t.Fatal(err)
			}
			// Two runs, one scripted turn each.
			srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(ws.Dir, "requests.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			nsEnv := []string{"NOTESOUP_HOME=" + filepath.Join(ws.Dir, "notesoup"), "XDG_CACHE_HOME=" + filepath.Join(ws.Dir, "cache"),
				"XDG_CONFIG_HOME=" + filepath.Join(ws.Dir, "config"), "XDG_DATA_HOME=" + filepath.Join(ws.Dir, "data")}
			// The workspace turns the sync off by default; this test is about it.
			cliEnv := append(append([]string{"NOTESOUP_VAULT_SYNC=on"}, nsEnv...), tc.env...)
			mustRun(t, ws, tc.h, cli, srv, cliEnv, tc.args(ws)...)
			mustRun(t, ws, tc.h, cli, srv, cliEnv, tc.args(ws)...)

			// The sync is detached and not waited for: poll, bounded
			// generously, for the vault to hold the session.
			var kept int
			for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline) && kept == 0; time.Sleep(200 * time.Millisecond) {
				out, _, code := run(t, ws, tc.h, notesoupBin, srv, nsEnv, "vault", "status", "--json")
				var st struct {
					Harnesses []struct {
						Harness  string `json:"harness"`
						Sessions int    `json:"sessions"`
					} `json:"harnesses"`
				}
				if code == 0 && json.Unmarshal([]byte(out), &st) == nil {
					for _, h := range st.Harnesses {
						if h.Harness == string(tc.h) {
							kept = h.Sessions
						}
					}
				}
			}
			// Taking the lock ourselves waits out a sync still running, so
			// none outlives the test's folders.
			run(t, ws, tc.h, notesoupBin, srv, nsEnv, "vault", "sync", "--quiet", "--wait", "60s")
			if kept == 0 {
				t.Fatalf("the vault keeps no %s session after a run with the integration loaded: its session start did not sync", tc.h)
			}
		})
	}
}

func requirePlugin(t *testing.T, dir, make string, files ...string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("%s is not built (%v); run %s", dir, err, make)
		}
	}
}
