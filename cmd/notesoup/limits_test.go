//go:build !light

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLimitsCLI: `notesoup limits` prints what service.Limits answers; the
// margins come from the harness's own settings files unless --settings
// replaces them, as in the helper protocol.
func TestLimitsCLI(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("NOTESOUP_PLUGIN_DIR", "")
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	write := func(path, text string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write(filepath.Join(home, ".pi", "agent", "settings.json"), `{"notesoup":{"resetMarginTokens":1000}}`)
	settings := write(filepath.Join(t.TempDir(), "s.json"), `{"notesoup":{"resetMarginTokens":3000}}`)
	common := []string{"--user-home", home, "--cwd", proj, "--window", "200000"}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{name: "pi margins from its settings file", args: []string{"--harness", "pi"},
			stdout: []string{"native   183616 tokens", "hard     182616 (native − resetMarginTokens 1000)"}},
		{name: "--settings replaces the files", args: []string{"--harness", "pi", "--settings", settings},
			stdout: []string{"hard     180616 (native − resetMarginTokens 3000)"}},
		{name: "a cap lowers the point", args: []string{"--harness", "claude", "--cap", "100k"},
			stdout: []string{"cap      100k (lowered the point: true)"}},
		{name: "a cap that is no number", args: []string{"--harness", "claude", "--cap", "lots"}, code: 2, stderr: "notesoup limits:"},
		{name: "no harness", args: []string{}, code: 2, stderr: "--harness is required, one of claude, pi, codex"},
		{name: "unknown harness", args: []string{"--harness", "emacs"}, code: 2, stderr: `"emacs"`},
		{name: "a settings file that is a directory", args: []string{"--harness", "pi", "--settings", proj}, code: 2, stderr: "not a regular file"},
		{name: "a stray argument", args: []string{"--harness", "pi", "now"}, code: 2, stderr: `unexpected argument "now"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, append(append([]string{"limits"}, tc.args...), common...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.code, out, errs)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout %q lacks %q", out, want)
				}
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr %q lacks %q", errs, tc.stderr)
			}
		})
	}
}
