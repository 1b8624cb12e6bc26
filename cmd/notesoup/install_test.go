//go:build !light

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

const testBin = "/opt/notesoup/bin/notesoup"

func TestInstallCodexCommand(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfg, []byte("model = \"m\"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	// --dry-run writes nothing and shows the files.
	out, errOut, code := runCLI(t, "install", "codex", "--codex-home", home, "--binary", testBin, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(cfg); string(b) != "model = \"m\"\n" {
		t.Errorf("dry run changed config.toml")
	}
	if _, err := os.Stat(filepath.Join(home, "hooks.json")); err == nil {
		t.Errorf("dry run wrote hooks.json")
	}
	for _, w := range []string{"would write", "[mcp_servers.notesoup]", "hook codex SessionStart"} {
		if !strings.Contains(out, w) {
			t.Errorf("dry run output lacks %q:\n%s", w, out)
		}
	}
	// A real run writes both, keeps the file mode, and a second is a no-op.
	out, errOut, code = runCLI(t, "install", "codex", "--codex-home", home, "--binary", testBin, "--json")
	if code != 0 {
		t.Fatalf("install exit %d: %s", code, errOut)
	}
	var rep harness.InstallReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !slices.Contains(rep.Changed, cfg) || !slices.Contains(rep.Changed, filepath.Join(home, "hooks.json")) {
		t.Fatalf("report %q: %v; want config.toml and hooks.json changed", out, err)
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o640 {
		t.Errorf("config.toml mode = %v, want 0640 kept", st.Mode().Perm())
	}
	out, _, code = runCLI(t, "install", "codex", "--codex-home", home, "--binary", testBin)
	for _, f := range []string{cfg, filepath.Join(home, "hooks.json")} {
		if code != 0 || !strings.Contains(out, f+": already up to date") {
			t.Errorf("second install: exit %d, %s not up to date\n%s", code, f, out)
		}
	}
	// Another notesoup binary upgrades notesoup's own entry.
	out, errOut, code = runCLI(t, "install", "codex", "--codex-home", home, "--binary", "/elsewhere/notesoup")
	if code != 0 || !strings.Contains(out, "upgraded notesoup's own entry") {
		t.Errorf("other notesoup binary: exit %d, stdout %s, stderr %s", code, out, errOut)
	}
	// A server of that name that is not notesoup's is refused (exit 2,
	// under --json as a JSON error), and nothing is written.
	foreign := "[mcp_servers.notesoup]\ncommand = \"/usr/bin/other-tool\"\n"
	if err := os.WriteFile(cfg, []byte(foreign), 0o640); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, "install", "codex", "--codex-home", home, "--binary", testBin, "--json")
	var e errorJSON
	if code != 2 || json.Unmarshal([]byte(out), &e) != nil || e.Error.Code != "error" || !strings.Contains(e.Error.Message, "refusing to overwrite") {
		t.Errorf("foreign server: exit %d, stdout %s, stderr %s; want 2 and a JSON error refusing to overwrite", code, out, errOut)
	}
	if after, _ := os.ReadFile(cfg); string(after) != foreign {
		t.Errorf("refused install changed config.toml:\n%s", after)
	}
}

func TestInstallerUsage(t *testing.T) {
	// Misuse must stop before anything is copied; if it did not, the copy
	// lands in a temporary home, not the real one.
	t.Setenv("HOME", t.TempDir())
	t.Setenv("NOTESOUP_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", "")
	tests := []struct {
		args []string
		// stderr must hold want.
		want string
	}{
		{[]string{"install", "--dry-run"}, "name the harness first: notesoup install HARNESS"},
		{[]string{"uninstall", "--json"}, "harnesses: claude, pi, codex"},
		{[]string{"install", "emacs"}, `harness "emacs" has no installer`},
		{[]string{"install", "codx"}, `(did you mean "codex"?)`},
		{[]string{"install", "pi", "extra"}, "unexpected arguments"},
		{[]string{"uninstall", "claude", "--package", "/x"}, "unknown flag --package"},
		{[]string{"install", "codex", "extra"}, "unexpected arguments"},
		{[]string{"uninstall", "codex", "--binary", "/x"}, "unknown flag --binary"},
		{[]string{"install", "codex", "--codex-hme", "/x"}, `did you mean "--codex-home"?`},
		{[]string{"install", "codex", "--codex-home"}, "--codex-home needs a value"},
	}
	for _, tc := range tests {
		out, errOut, code := runCLI(t, tc.args...)
		if slices.Contains(tc.args, "--json") {
			var e errorJSON
			if err := json.Unmarshal([]byte(out), &e); err != nil || e.Error.Code != "usage" || errOut != "" {
				t.Errorf("%v: stdout %q is not a JSON usage error (stderr %q)", tc.args, out, errOut)
			}
			errOut = e.Error.Message
		}
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// Help is an answer, not an error: on stdout, exit 0, in the table's
	// style, with the harness's own flags only.
	for _, tc := range []struct {
		args       []string
		want, lack []string
	}{
		{[]string{"install"}, []string{"Usage:\n  notesoup install HARNESS [flags]", "  codex ", "  claude "}, nil},
		{[]string{"install", "claude", "--help"}, []string{"--claude-config-dir DIR", "--package DIR", "--binary FILE", "--dry-run"}, []string{"--codex-home", "Usage of"}},
		{[]string{"uninstall", "codex", "-h"}, []string{"--codex-home DIR", "--json"}, []string{"--binary", "--package"}},
		{[]string{"help", "uninstall", "pi"}, []string{"--pi-agent-dir DIR"}, []string{"--binary"}},
	} {
		out, errOut, code := runCLI(t, tc.args...)
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and help on stdout", tc.args, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: help lacks %q:\n%s", tc.args, w, out)
			}
		}
		for _, l := range tc.lack {
			if strings.Contains(out, l) {
				t.Errorf("%v: help has %q:\n%s", tc.args, l, out)
			}
		}
	}
}

// TestUninstallCodexCommand: uninstall gives config.toml back as it was
// before install, removes the hooks.json install created, keeps the notes,
// and a second run changes nothing.
func TestUninstallCodexCommand(t *testing.T) {
	home, notesHome := t.TempDir(), t.TempDir()
	t.Setenv("NOTESOUP_HOME", notesHome)
	note := filepath.Join(notesHome, "global", "plan.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("# Plan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config.toml")
	const mine = "# mine\nmodel = \"m\"\n\n[model_providers.fake]\nname = \"F\"\n"
	if err := os.WriteFile(cfg, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI(t, "install", "codex", "--codex-home", home, "--binary", testBin); code != 0 {
		t.Fatalf("install exit %d: %s", code, errOut)
	}
	installed, _ := os.ReadFile(cfg)
	out, errOut, code := runCLI(t, "uninstall", "codex", "--codex-home", home, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run exit %d: %s", code, errOut)
	}
	for _, w := range []string{"would write " + cfg, "would remove " + filepath.Join(home, "hooks.json"), "(would be removed)", "[model_providers.fake]"} {
		if !strings.Contains(out, w) {
			t.Errorf("dry run output lacks %q:\n%s", w, out)
		}
	}
	if now, _ := os.ReadFile(cfg); string(now) != string(installed) {
		t.Errorf("dry run changed config.toml")
	}
	out, errOut, code = runCLI(t, "uninstall", "codex", "--codex-home", home)
	if code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, errOut)
	}
	for _, w := range []string{"[mcp_servers.notesoup]: removed", "compact_prompt: removed notesoup's", "hooks.json SessionStart: removed notesoup's hook", "The notes are kept."} {
		if !strings.Contains(out, w) {
			t.Errorf("uninstall output lacks %q:\n%s", w, out)
		}
	}
	if now, _ := os.ReadFile(cfg); string(now) != mine {
		t.Errorf("config.toml = %q, want it as it was: %q", now, mine)
	}
	if _, err := os.Stat(filepath.Join(home, "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("hooks.json is still there (%v); install created it", err)
	}
	if b, err := os.ReadFile(note); err != nil || string(b) != "# Plan\n" {
		t.Errorf("the note is gone or changed: %q, %v", b, err)
	}
	out, _, code = runCLI(t, "uninstall", "codex", "--codex-home", home)
	if code != 0 || !strings.Contains(out, "already up to date") || !strings.Contains(out, "not installed") {
		t.Errorf("second uninstall: exit %d\n%s", code, out)
	}
}

// TestInstallHooksRunNotesoup: the hooks run the notesoup binary installed,
// the one command there is, even beside a notesoup-helper an older build
// left there.
func TestInstallHooksRunNotesoup(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"notesoup", "notesoup-helper"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	if _, errOut, code := runCLI(t, "install", "codex", "--codex-home", home, "--binary", filepath.Join(dir, "notesoup")); code != 0 {
		t.Fatalf("install exit %d: %s", code, errOut)
	}
	hooks, err := os.ReadFile(filepath.Join(home, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "notesoup") + " hook codex PostToolUse"; !strings.Contains(string(hooks), want) {
		t.Errorf("hooks.json lacks %q:\n%s", want, hooks)
	}
}
