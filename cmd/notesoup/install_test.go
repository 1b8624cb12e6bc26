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
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Changed) != 2 {
		t.Fatalf("report %q: %v", out, err)
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o640 {
		t.Errorf("config.toml mode = %v, want 0640 kept", st.Mode().Perm())
	}
	out, _, code = runCLI(t, "install", "codex", "--codex-home", home, "--binary", testBin)
	if code != 0 || strings.Count(out, "already up to date") != 2 {
		t.Errorf("second install: exit %d\n%s", code, out)
	}
	// Another binary path is refused, and nothing is written.
	before, _ := os.ReadFile(cfg)
	_, errOut, code = runCLI(t, "install", "codex", "--codex-home", home, "--binary", "/elsewhere/notesoup")
	if code != 1 || !strings.Contains(errOut, "refusing to overwrite") {
		t.Errorf("other binary: exit %d, stderr %s", code, errOut)
	}
	if after, _ := os.ReadFile(cfg); string(after) != string(before) {
		t.Errorf("refused install changed config.toml")
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
		{[]string{"install"}, "harnesses: claude, pi, codex"},
		{[]string{"uninstall"}, "harnesses: claude, pi, codex"},
		{[]string{"install", "--dry-run"}, "Usage: notesoup install <harness>"},
		{[]string{"install", "emacs"}, `harness "emacs" has no installer`},
		{[]string{"install", "pi", "extra"}, "unexpected arguments"},
		{[]string{"uninstall", "claude", "--package", "/x"}, "flag provided but not defined: -package"},
		{[]string{"install", "codex", "extra"}, "unexpected arguments"},
		{[]string{"uninstall", "codex", "--binary", "/x"}, "flag provided but not defined: -binary"},
	}
	for _, tc := range tests {
		_, errOut, code := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
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
