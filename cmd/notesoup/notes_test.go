//go:build !light

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNotesAndBootCLI(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	textFile := filepath.Join(t.TempDir(), "note.md")
	os.WriteFile(textFile, []byte("# From a file\n"), 0o644)
	common := []string{"--home", home, "--cwd", proj}
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string // substring of stdout
		stderr string // substring of stderr
	}{
		{name: "write from stdin", args: []string{"notes", "write", "api/auth.md"}, stdin: "# Auth\ntokens last 1h\n", stdout: "Created api/auth.md (22 B, 2 lines)."},
		{name: "write from file, flags after name", args: []string{"notes", "write", "~/style.md", "--file", textFile}, stdout: "Created ~/style.md"},
		{name: "list", args: []string{"notes", "list"}, stdout: "api/auth.md  22 B  "},
		{name: "list prefix", args: []string{"notes", "list", "~/"}, stdout: "~/style.md"},
		{name: "read range", args: []string{"notes", "read", "api/auth.md", "--from", "2"}, stdout: "api/auth.md (2 lines, showing 2-2)\n2\ttokens last 1h\n"},
		{name: "read raw", args: []string{"notes", "read", "--raw", "api/auth.md"}, stdout: "# Auth\ntokens last 1h\n"},
		{name: "edit", args: []string{"notes", "edit", "api/auth.md", "--old", "1h", "--new", "2h"}, stdout: "Edited api/auth.md at line 2"},
		{name: "edit refused", args: []string{"notes", "edit", "api/auth.md", "--old", "3h", "--new", "4h"}, code: 2, stderr: "--old occurs 0 times"},
		{name: "edit without --new", args: []string{"notes", "edit", "api/auth.md", "--old", "2h"}, code: 2, stderr: "give both --old TEXT and --new TEXT"},
		{name: "bad name", args: []string{"notes", "read", "../etc.md"}, code: 2, stderr: "good name looks like"},
		{name: "missing name", args: []string{"notes", "read"}, code: 2, stderr: "expected one NAME"},
		{name: "unknown op", args: []string{"notes", "move", "a.md"}, code: 2, stderr: `unknown subcommand "move"`},
		{name: "boot claude", args: []string{"boot", "--harness", "claude", "--session", "s1", "--ordinal", "2", "--sticky", "run make test"},
			stdout: "<notesoup-boot window=\"claude:s1:2\">"},
		{name: "boot names the reset tool", args: []string{"boot", "--harness", "claude", "--session", "s1"}, stdout: "call mcp__notesoup__empty_brain for a fresh window"},
		{name: "boot pi", args: []string{"boot", "--harness", "pi", "--session", "s1", "--handoff", "Carry on."}, stdout: "## Handoff\nCarry on.\n</notesoup-boot>\n"},
		{name: "boot unknown harness", args: []string{"boot", "--harness", "vim", "--session", "s"}, code: 2, stderr: "known: [claude pi codex gemini copilot]"},
		{name: "boot without session", args: []string{"boot", "--harness", "pi"}, code: 2, stderr: "--session are required"},
		{name: "delete", args: []string{"notes", "delete", "api/auth.md"}, stdout: "Deleted api/auth.md"},
		{name: "delete again", args: []string{"notes", "delete", "api/auth.md"}, code: 2, stderr: "no note named api/auth.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notesStdin = strings.NewReader(tt.stdin)
			var out, errb bytes.Buffer
			args := append(append([]string{}, tt.args...), common...)
			code := run(args, &out, &errb)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tt.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout %q lacks %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.stderr)
			}
		})
	}
	// --json gives the result struct.
	var out bytes.Buffer
	if code := run(append([]string{"notes", "list", "--json"}, common...), &out, &bytes.Buffer{}); code != 0 {
		t.Fatalf("list --json exit %d", code)
	}
	var lr struct {
		Notes []struct {
			Name      string `json:"name"`
			FirstLine string `json:"first_line"`
		} `json:"notes"`
	}
	if err := json.Unmarshal(out.Bytes(), &lr); err != nil || len(lr.Notes) != 1 || lr.Notes[0].Name != "~/style.md" || lr.Notes[0].FirstLine != "From a file" {
		t.Errorf("list --json = %s (%v)", out.String(), err)
	}
	out.Reset()
	if code := run(append([]string{"boot", "--harness", "codex", "--session", "t", "--json"}, common...), &out, &bytes.Buffer{}); code != 0 {
		t.Fatalf("boot --json exit %d", code)
	}
	var br struct {
		Binding struct {
			WindowID  string `json:"window_id"`
			ResetTool string `json:"reset_tool"`
		} `json:"binding"`
		Text string   `json:"text"`
		Full []string `json:"full"`
	}
	if err := json.Unmarshal(out.Bytes(), &br); err != nil || br.Binding.WindowID != "codex:t:0" || br.Binding.ResetTool != "" || len(br.Full) != 1 {
		t.Errorf("boot --json = %s (%v)", out.String(), err)
	}
}
