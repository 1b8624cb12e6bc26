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

// copyClaudeFixture lays a hand-written transcript out the way Claude Code
// does (<root>/<slug>/<sessionId>.jsonl) and returns the roots flags.
func copyClaudeFixture(t *testing.T, fixture, sid string) []string {
	t.Helper()
	root := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "history", "claude", fixture))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "-work-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	return []string{"--claude-root", root, "--pi-root", empty, "--codex-root", empty}
}

const cliSID = "11111111-1111-4111-8111-111111111111"

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestHistoryCLI(t *testing.T) {
	// Everything the CLI and its plugins (which inherit the environment)
	// write goes under the test's own directories, never the real home.
	home, cache := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	defer func() {
		if _, err := os.Stat(filepath.Join(cache, "notesoup")); err != nil {
			t.Errorf("the session cache is not under the test's XDG_CACHE_HOME (%v): it went somewhere else", err)
		}
	}()
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"sessions", []string{"history", "sessions"}, 0, []string{"claude:" + cliSID, "/work/proj", "Please list the files and say HELLO"}, ""},
		{"sessions cwd filter excludes", []string{"history", "sessions", "--cwd", "/elsewhere"}, 0, nil, "no sessions"},
		{"list query", []string{"history", "list", "--query", "hello"}, 0, []string{"#2 claude:" + cliSID + ":0 user", "1 entry matching \"hello\""}, ""},
		{"list roles skip empty envelopes", []string{"history", "list", "--session", "claude:1111", "--role", "assistant"}, 0, []string{"#4 ", "#10 "}, ""},
		{"list pages with a CLI footer", []string{"history", "list", "--limit", "2", "--after", "1"}, 0, []string{"newer entries: notesoup history list --session claude:" + cliSID + " --after 4 --limit 2"}, ""},
		{"list from the beginning", []string{"history", "list", "--oldest", "--limit", "1"}, 0, []string{"#1 claude:", "--after 1 --limit 1"}, ""},
		{"read a result shows its call", []string{"history", "read", "--seq", "8"}, 0, []string{"#8 is the result of call #6", "a.txt"}, ""},
		{"read empty envelope", []string{"history", "read", "--seq", "3"}, 0, []string{"no visible text"}, ""},
		{"state", []string{"history", "state"}, 0, []string{"claude:" + cliSID + ":0 ordinal 0"}, ""},
		{"path selector refused", []string{"history", "list", "--session", "/etc/passwd"}, 2, nil, "looks like a path"},
		{"bad query refused before reading", []string{"history", "list", "--after", "2", "--before", "5"}, 2, nil, "not both"},
		{"unknown subcommand", []string{"history", "grep"}, 2, nil, "unknown subcommand"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, append(tc.args, roots...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errs)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if tc.stderr != "" && !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr lacks %q: %s", tc.stderr, errs)
			}
		})
	}
}

func TestHistoryCLIJSONAndNotice(t *testing.T) {
	roots := copyClaudeFixture(t, "gap.jsonl", cliSID)
	out, errs, code := runCLI(t, append([]string{"history", "list", "--json"}, roots...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var page struct {
		Session string `json:"session"`
		Entries []struct {
			Seq    int64  `json:"seq"`
			Window string `json:"window"`
		} `json:"entries"`
		Notice string `json:"notice"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if len(page.Entries) != 5 || !strings.Contains(page.Entries[0].Window, ":unknown:missing-1") || !strings.Contains(page.Notice, "missing-1") {
		t.Errorf("page = %+v", page)
	}
	text, _, _ := runCLI(t, append([]string{"history", "read", "--seq", "3"}, roots...)...)
	if !strings.HasPrefix(text, "[incomplete history]") {
		t.Errorf("read lacks the incomplete-history notice:\n%s", text)
	}
	_, errs, code = runCLI(t, append([]string{"history", "read", "--seq", "1"}, roots...)...)
	if code != 2 || !strings.HasPrefix(errs, "notesoup history read: [incomplete history]") || !strings.Contains(errs, "no address #1") {
		t.Errorf("read of an off-branch address: exit %d, %s", code, errs)
	}
	_, errs, code = runCLI(t, append([]string{"history", "state"}, roots...)...)
	if code != 2 || !strings.Contains(errs, "refusing to guess") {
		t.Errorf("state on an unknown window: exit %d, %s", code, errs)
	}
}

// TestHistoryRootFlags: --root NAME=DIR sets the roots of any harness the
// service knows, --NAME-root DIR is its alias for each built-in, and a root
// of no harness is an error, not a silently ignored flag.
func TestHistoryRootFlags(t *testing.T) {
	root := copyClaudeFixture(t, "basic.jsonl", cliSID)[1] // the --claude-root value
	empty := t.TempDir()
	quiet := []string{"--root", "pi=" + empty, "--root", "codex=" + empty}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"--root NAME=DIR", append([]string{"--root", "claude=" + root}, quiet...), 0, "claude:" + cliSID, ""},
		{"the built-in alias", append([]string{"--claude-root", root}, quiet...), 0, "claude:" + cliSID, ""},
		{"alias and --root add up", append([]string{"--claude-root", empty, "--root", "claude=" + root}, quiet...), 0, "claude:" + cliSID, ""},
		{"an empty root has no sessions", append([]string{"--root", "claude=" + empty}, quiet...), 0, "", "no sessions"},
		{"a harness that does not exist", []string{"--root", "emacs=" + root}, 2, "", `there is no harness "emacs" (harnesses: claude, pi, codex, gemini, copilot)`},
		{"no directory", []string{"--root", "claude="}, 2, "", "want NAME=DIR"},
		{"no name", []string{"--root", root}, 2, "", "want NAME=DIR"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, append([]string{"history", "sessions"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errs)
			}
			if !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q and %q", out, errs, tc.stdout, tc.stderr)
			}
		})
	}
	// The help lists an alias for every built-in, and no other.
	help, _, _ := runCLI(t, "history", "--help")
	if !strings.Contains(help, "--claude-root, --pi-root, --codex-root, --gemini-root") || !strings.Contains(help, "--root NAME=DIR") {
		t.Errorf("help does not list --root and the aliases:\n%s", help)
	}
}
