//go:build e2e

package opencode

// The real-CLI test of `notesoup install opencode`: the external plugin's
// own installer (reached through notesoup's fallback) writes notesoup's
// MCP server into opencode.json and plugin/notesoup.js into OpenCode's
// configuration folder; the pinned OpenCode then offers the notes tools
// and puts the session's boot block into the system prompt, and a
// scripted notes_write lands a note. Uninstall gives opencode.json back
// byte for byte.

import (
	"bufio"
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

// theirConfig is an opencode.json of the person's own, with a comment.
const theirConfig = "{\n  // mine\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"autoupdate\": false\n}\n"

func TestOpenCodeRunsWithNotesoupInstalled(t *testing.T) {
	repo := testbin.Root()
	ocBin := openCodeCLI(t, repo)
	plugins, notesoup := buildRelease(t, repo)

	w, err := modelserver.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notesHome := filepath.Join(w.Dir, "notesoup")
	configDir := filepath.Join(w.Home, ".config", "opencode")
	config := filepath.Join(configDir, "opencode.json")
	if err := os.MkdirAll(configDir, 0o700); err != nil || os.WriteFile(config, []byte(theirConfig), 0o600) != nil {
		t.Fatalf("writing %s: %v", config, err)
	}
	ns := []string{"NOTESOUP_HOME=" + notesHome, "NOTESOUP_PLUGIN_DIR=" + plugins}
	notesoupCmd := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, notesoup, args...)
		cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + w.Home, "TMPDIR=" + w.Tmp,
			"XDG_CONFIG_HOME=" + filepath.Join(w.Home, ".config"), "XDG_DATA_HOME=" + filepath.Join(w.Home, ".local", "share")}, ns...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("notesoup %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// No --binary: notesoup copies itself (and notesoup-host) into its
	// install folder and the plugin wires that copy in.
	t.Logf("install:\n%s", notesoupCmd("install", "opencode"))
	pluginJS := filepath.Join(configDir, "plugin", "notesoup.js")
	if _, err := os.Stat(pluginJS); err != nil {
		t.Fatalf("install wrote no %s: %v", pluginJS, err)
	}

	mark := fmt.Sprintf("owner-%d", time.Now().UnixNano())
	sc, err := modelserver.LoadScript(filepath.Join("testdata", "notes.json"), map[string]string{"MARK": mark})
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
	cmd := exec.CommandContext(ctx, ocBin, "run", "--format", "json")
	cmd.Dir = w.Work
	cmd.Env = append(Env(w.Home, w.Tmp, srv.URL()), ns...)
	cmd.Stdin = strings.NewReader("Keep the release plan in your notes.\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("opencode run: %v\n%s", err, stderr.String())
	}
	t.Logf("opencode stderr:\n%s", stderr.String())
	if p := srv.Problems(); len(p) > 0 {
		t.Fatalf("off-script requests: %q", p)
	}
	if srv.TurnsUsed() != len(sc.Turns) {
		t.Fatalf("used %d of %d turns", srv.TurnsUsed(), len(sc.Turns))
	}
	session := ""
	lines := bufio.NewScanner(&stdout)
	lines.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for lines.Scan() && session == "" {
		var ev struct {
			SessionID string `json:"sessionID"`
		}
		if json.Unmarshal(lines.Bytes(), &ev) == nil {
			session = ev.SessionID
		}
	}
	if session == "" {
		t.Fatalf("no sessionID in opencode's output:\n%s", stdout.String())
	}

	var main, title []modelserver.Request
	for _, r := range srv.ModelRequests(modelserver.Chat) {
		if strings.Contains(r.Answer, "rule") {
			title = append(title, r)
		} else {
			main = append(main, r)
		}
	}
	if len(main) != 3 {
		t.Fatalf("%d main-agent requests, want 3", len(main))
	}
	boot := `<notesoup-boot window="opencode:` + session + `:1">`
	for i, r := range main {
		text := r.Text()
		if n := strings.Count(text, boot); n != 1 {
			t.Errorf("request %d carries %d copies of %s, want 1:\n%.3000s", i+1, n, boot, text)
		}
		if strings.Contains(text, "opencode:unbound") {
			t.Errorf("request %d still carries the MCP server's unbound boot", i+1)
		}
	}
	var offered struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(main[0].Body, &offered); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tool := range offered.Tools {
		tools = append(tools, tool.Function.Name)
	}
	for _, want := range []string{"notes_list", "notes_read", "notes_write", "notes_edit", "notes_delete", "history_list", "history_read"} {
		if !slices.Contains(tools, "notesoup_"+want) {
			t.Errorf("the first request does not offer notesoup_%s: %v", want, tools)
		}
	}
	for _, r := range title {
		if strings.Contains(r.Text(), "<notesoup-boot") {
			t.Errorf("the title generator's request carries a boot block")
		}
	}
	found := ""
	filepath.WalkDir(notesHome, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == "plan.md" {
			b, _ := os.ReadFile(p)
			found = string(b)
		}
		return nil
	})
	if !strings.Contains(found, mark) {
		t.Fatalf("plan.md holding %q not found under NOTESOUP_HOME %s (found %q)", mark, notesHome, found)
	}
	if !strings.Contains(main[2].Text(), "plan.md") {
		t.Errorf("notes_list's answer sent back lacks plan.md:\n%.2000s", main[2].Text())
	}

	t.Logf("uninstall:\n%s", notesoupCmd("uninstall", "opencode"))
	if got, _ := os.ReadFile(config); string(got) != theirConfig {
		t.Errorf("opencode.json after uninstall:\n%q\nwant\n%q", got, theirConfig)
	}
	if _, err := os.Stat(pluginJS); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", pluginJS, err)
	}
}
