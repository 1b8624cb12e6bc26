//go:build !light

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

// doctorHome is a fake machine: HOME, the notes home, Codex's home with
// notesoup installed (hooks not trusted yet), Claude's config folder, and
// a PATH with no harness CLIs (the rows come from the configuration).
func doctorHome(t *testing.T) (codexHome, claudeDir string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, "notes"))
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("NOTESOUP_PLUGIN_DIR", "")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("PI_CODING_AGENT_DIR", "")
	codexHome = filepath.Join(home, ".codex")
	t.Setenv("CODEX_HOME", codexHome)
	claudeDir = filepath.Join(home, ".claude")
	if err := os.MkdirAll(claudeDir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(home, "bin", "notesoup")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "install", "codex", "--codex-home", codexHome, "--binary", bin); code != 0 {
		t.Fatalf("install codex: exit %d: %s", code, errOut)
	}
	return codexHome, claudeDir
}

// doctorJSON runs `notesoup doctor --json` and returns its exit code and
// rows by subject and item.
func doctorJSON(t *testing.T) (int, map[string]harness.Check) {
	t.Helper()
	out, errOut, code := runCLI(t, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	rows := map[string]harness.Check{}
	for _, c := range rep.Checks {
		rows[c.Subject+"/"+c.Item] = c
	}
	if rep.OK != (code == 0) {
		t.Errorf("ok = %v with exit %d", rep.OK, code)
	}
	return code, rows
}

func TestDoctorReportsHookTrustAndRetention(t *testing.T) {
	codexHome, claudeDir := doctorHome(t)
	// install codex records the hooks' trust; without it (a config.toml
	// from before, or a person's own) Codex runs none of them.
	cfgPath := filepath.Join(codexHome, "config.toml")
	trusted, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(trusted), "\n# notesoup: Codex runs notesoup's hooks")
	if at < 0 {
		t.Fatalf("install codex recorded no hook trust:\n%s", trusted)
	}
	if err := os.WriteFile(cfgPath, trusted[:at+1], 0o600); err != nil {
		t.Fatal(err)
	}
	code, rows := doctorJSON(t)
	if code != 1 {
		t.Errorf("exit %d, want 1 (problems)", code)
	}
	trust := rows["codex/hooks trusted"]
	if trust.Status != harness.CheckProblem || !strings.Contains(trust.Detail, "session_start") || trust.Fix == "" {
		t.Errorf("hook trust row = %+v, want a problem naming session_start, with a fix", trust)
	}
	if srv := rows["codex/mcp server"]; srv.Status != harness.CheckOK {
		t.Errorf("mcp server row = %+v, want ok", srv)
	}
	ret := rows["claude/transcript retention"]
	if ret.Status != harness.CheckProblem || !strings.Contains(ret.Detail, "default is 30") || !strings.Contains(ret.Fix, "cleanupPeriodDays") {
		t.Errorf("retention row = %+v, want a problem naming the 30-day default, with a fix", ret)
	}
	if p := rows["pi/found"]; p.Status != harness.CheckSkip {
		t.Errorf("pi row = %+v, want skip (no pi, no ~/.pi/agent)", p)
	}

	// Trust recorded as install records it (the hashes Codex's "Trust
	// all" writes), and a retention of a century: no problems left, exit 0.
	if err := os.WriteFile(cfgPath, trusted, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(claudeDir, "settings.json"), []byte(`{"cleanupPeriodDays": 36500}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, rows = doctorJSON(t)
	if rows["codex/hooks trusted"].Status != harness.CheckOK || rows["claude/transcript retention"].Status != harness.CheckOK {
		t.Errorf("after trust and retention: %+v / %+v", rows["codex/hooks trusted"], rows["claude/transcript retention"])
	}
	if code != 0 {
		for _, c := range rows {
			if c.Status == harness.CheckProblem {
				t.Errorf("problem left: %+v", c)
			}
		}
	}
}

func TestDoctorRows(t *testing.T) {
	_, claudeDir := doctorHome(t)
	tests := []struct {
		name     string
		settings string
		row      string
		status   string
		detail   string
	}{
		{"retention set short", `{"cleanupPeriodDays": 7}`, "claude/transcript retention", harness.CheckProblem, "cleanupPeriodDays is 7"},
		{"plugin disabled", `{"enabledPlugins": {"notesoup@notesoup": false}}`, "claude/plugin", harness.CheckProblem, "disabled"},
		{"plugin absent", `{}`, "claude/plugin", harness.CheckWarn, "not installed"},
		{"plugin folder gone", `{"enabledPlugins": {"notesoup@notesoup": true}, "extraKnownMarketplaces": {"notesoup": {"source": {"source": "directory", "path": "/nonexistent/build/dist"}}}}`, "claude/plugin folder", harness.CheckProblem, "no runnable"},
		{"settings not JSON", `{`, "claude/settings", harness.CheckProblem, "settings.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(claudeDir, "settings.json"), []byte(tc.settings), 0o600); err != nil {
				t.Fatal(err)
			}
			_, rows := doctorJSON(t)
			c := rows[tc.row]
			if c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) {
				t.Errorf("%s = %+v, want %s with %q", tc.row, c, tc.status, tc.detail)
			}
			if c.Status == harness.CheckProblem && c.Fix == "" {
				t.Errorf("%s: a problem without a fix", tc.row)
			}
		})
	}
}

func TestDoctorTextAndUsage(t *testing.T) {
	doctorHome(t)
	out, _, code := runCLI(t, "doctor")
	if code != 1 || !strings.Contains(out, "fix: ") || !strings.Contains(out, "problem(s) found") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
	if _, errOut, code := runCLI(t, "doctor", "extra"); code != 2 || !strings.Contains(errOut, "unexpected arguments") {
		t.Errorf("doctor extra: exit %d, %s", code, errOut)
	}
}
