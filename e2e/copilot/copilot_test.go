//go:build e2e

// Package copilot runs the real GitHub Copilot CLI (e2e/install.sh) wired
// to notesoup by `notesoup install copilot` — the MCP server in
// mcp-config.json and the sessionStart hook in settings.json — against the
// scripted chat-completions server on 127.0.0.1 (COPILOT_OFFLINE, no
// GitHub sign-in), in an isolated HOME and COPILOT_HOME:
//
//	go test -tags e2e -count=1 ./e2e/copilot/
package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// runTimeout bounds one copilot run; a scripted run takes seconds.
const runTimeout = 3 * time.Minute

// sessionID is the id the test gives the Copilot CLI's session.
const sessionID = "0c0c0c0c-0000-4000-8000-00000000c0b1"

// theirSettings is a settings.json of the person's own, with a comment:
// uninstall must give it back byte for byte.
const theirSettings = "{\n  // mine\n  \"banner\": \"never\"\n}\n"

// chatRequest is the part of a chat-completions request the assertions
// read: the tools offered.
type chatRequest struct {
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func toolNames(t *testing.T, r modelserver.Request) []string {
	t.Helper()
	var q chatRequest
	if err := json.Unmarshal(r.Body, &q); err != nil {
		t.Fatalf("request %d is not a chat request: %v", r.Seq, err)
	}
	var out []string
	for _, tool := range q.Tools {
		out = append(out, tool.Function.Name)
	}
	return out
}

// env is one isolated Copilot setup.
type env struct {
	copilotBin, bin string
	w               *modelserver.Workspace
	notesHome       string
	copilotHome     string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cbin, err := modelserver.CLIPath(repo, modelserver.Copilot)
	if err != nil {
		t.Fatal(err)
	}
	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &env{copilotBin: cbin, bin: testbin.Installed(t, repo), w: w,
		notesHome: filepath.Join(w.Dir, "notesoup"), copilotHome: filepath.Join(w.Home, ".copilot")}
}

// notesoup runs the notesoup binary with the workspace's HOME.
func (e *env) notesoup(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+e.w.Home, "COPILOT_HOME="+e.copilotHome, "NOTESOUP_HOME="+e.notesHome,
		"XDG_DATA_HOME="+filepath.Join(e.w.Dir, "xdg-data"), "XDG_CONFIG_HOME="+filepath.Join(e.w.Dir, "xdg-config"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("notesoup %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// run plays script against copilot with args and returns the server.
func (e *env) run(t *testing.T, script string, vars map[string]string, args ...string) *modelserver.Server {
	t.Helper()
	sc, err := modelserver.LoadScript(filepath.Join("testdata", script), vars)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc, LogPath: filepath.Join(e.w.Dir, "requests-"+script+"l")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd, err := e.w.Command(ctx, modelserver.Copilot, e.copilotBin, srv.URL(),
		modelserver.AgentOptions{Env: []string{"NOTESOUP_HOME=" + e.notesHome}},
		append(args, "--allow-all", "--no-auto-update")...)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	t.Logf("copilot %v stdout:\n%s\nstderr:\n%s", args, stdout.String(), stderr.String())
	if runErr != nil {
		t.Fatalf("copilot: %v", runErr)
	}
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	if srv.TurnsUsed() != len(sc.Turns) {
		t.Fatalf("used %d of %d scripted turns", srv.TurnsUsed(), len(sc.Turns))
	}
	return srv
}

// TestCopilotNotesAndBoot: with notesoup installed, the first request of a
// headless copilot run carries the boot block of window copilot:<id>:0
// (from the sessionStart hook) and offers the notes and history tools; a
// scripted notes_write lands the note on disk, and notes_list sees it. A
// resumed run of the same session gets the boot again, listing the note.
// Uninstall then gives back settings.json byte for byte and removes the
// mcp-config.json install created.
func TestCopilotNotesAndBoot(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(e.copilotHome, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(e.copilotHome, "settings.json")
	if err := os.WriteFile(settings, []byte(theirSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	e.notesoup(t, "install", "copilot", "--binary", e.bin)

	mark := fmt.Sprintf("owner-%d", time.Now().UnixNano()) // found only if this run wrote it
	srv := e.run(t, "notes.json", map[string]string{"MARK": mark},
		"-p", "Keep the release plan in your notes.", "--session-id", sessionID)
	reqs := srv.ModelRequests(modelserver.Chat)
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	boot := `<notesoup-boot window="copilot:` + sessionID + `:0">`
	if n := strings.Count(reqs[0].Text(), boot); n != 1 {
		t.Errorf("first request carries %d copies of %s, want 1:\n%.3000s", n, boot, reqs[0].Text())
	}
	tools := toolNames(t, reqs[0])
	for _, tool := range []string{"notes_list", "notes_read", "notes_write", "notes_edit", "notes_delete", "history_list", "history_read"} {
		if !slices.Contains(tools, "notesoup-"+tool) {
			t.Errorf("first request does not offer notesoup-%s: %v", tool, tools)
		}
	}
	if strings.Contains(reqs[0].Text(), "empty_brain") {
		t.Errorf("the boot offers a reset tool Copilot does not have")
	}
	found := ""
	filepath.WalkDir(e.notesHome, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == "plan.md" {
			b, _ := os.ReadFile(p)
			found = string(b)
		}
		return nil
	})
	if !strings.Contains(found, mark) {
		t.Fatalf("plan.md holding %q not found under NOTESOUP_HOME %s (found %q)", mark, e.notesHome, found)
	}
	if !strings.Contains(reqs[2].Text(), "plan.md") {
		t.Errorf("notes_list's answer sent back lacks plan.md:\n%.2000s", reqs[2].Text())
	}

	// Resume: sessionStart fires with source "resume" and the hook
	// answers the boot, now listing the note (recorded as hook.end in
	// events.jsonl); Copilot 1.0.102 does not inject a resume's
	// additionalContext, so the resumed request carries the one boot the
	// session recorded when it began, before the first run's answer.
	srv2 := e.run(t, "resume.json", nil, "--resume", sessionID, "-p", "What is in the plan?")
	r2 := srv2.ModelRequests(modelserver.Chat)
	if len(r2) != 1 {
		t.Fatalf("%d requests on resume, want 1", len(r2))
	}
	last := r2[0].Text()
	if n := strings.Count(last, boot); n != 1 || strings.Index(last, boot) > strings.Index(last, "The plan is in plan.md.") {
		t.Errorf("the resumed request carries %d boots %s, want the session's first one:\n%.4000s", n, boot, last)
	}
	resumeBoot := hookAnswer(t, filepath.Join(e.copilotHome, "session-state", sessionID, "events.jsonl"), "resume")
	if !strings.Contains(resumeBoot, boot) || !strings.Contains(resumeBoot, "plan.md") {
		t.Errorf("the hook's answer on resume is not a boot listing plan.md:\n%s", resumeBoot)
	}

	// Uninstall: settings.json as it was, mcp-config.json (install's) gone.
	e.notesoup(t, "uninstall", "copilot")
	if got, _ := os.ReadFile(settings); string(got) != theirSettings {
		t.Errorf("settings.json after uninstall:\n%q\nwant\n%q", got, theirSettings)
	}
	if _, err := os.Stat(filepath.Join(e.copilotHome, "mcp-config.json")); !os.IsNotExist(err) {
		t.Errorf("mcp-config.json left behind (%v)", err)
	}
}

// hookAnswer returns the additionalContext notesoup's sessionStart hook
// answered for source, as Copilot recorded it (hook.start/hook.end events
// in the session's events.jsonl).
func hookAnswer(t *testing.T, events, source string) string {
	t.Helper()
	raw, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	var invocation string
	for _, line := range strings.Split(string(raw), "\n") {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				HookInvocationID string `json:"hookInvocationId"`
				HookType         string `json:"hookType"`
				Input            struct {
					Source string `json:"source"`
				} `json:"input"`
				Success bool `json:"success"`
				Output  struct {
					AdditionalContext string `json:"additionalContext"`
				} `json:"output"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Data.HookType != "sessionStart" {
			continue
		}
		switch {
		case ev.Type == "hook.start" && ev.Data.Input.Source == source:
			invocation = ev.Data.HookInvocationID
		case ev.Type == "hook.end" && invocation != "" && ev.Data.HookInvocationID == invocation:
			if !ev.Data.Success {
				t.Fatalf("the sessionStart hook failed on %s: %s", source, line)
			}
			return ev.Data.Output.AdditionalContext
		}
	}
	t.Fatalf("no sessionStart hook run for source %q in %s", source, events)
	return ""
}
