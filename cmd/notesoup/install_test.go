//go:build !light

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const testBin = "/opt/notesoup/bin/notesoup"

func TestMergeCodexConfig(t *testing.T) {
	ours := string(mustMerge(t, "", testBin))
	tests := []struct {
		name string
		old  string
		// err is a substring of the refusal, "" for success.
		err string
		// keep must survive byte for byte.
		keep []string
		// prompt is the compact_prompt expected afterwards.
		prompt string
		// same is true when the file must come back unchanged.
		same bool
	}{
		{name: "no file", old: "", prompt: CodexCompactPrompt},
		{name: "top-level keys and a provider table", old: "# mine\nmodel = \"m\"\n\n[model_providers.fake]\nname = \"F\" # keep me\n",
			keep: []string{"# mine\nmodel = \"m\"\n", "[model_providers.fake]\nname = \"F\" # keep me\n"}, prompt: CodexCompactPrompt},
		{name: "no trailing newline", old: "model = \"m\"", keep: []string{"model = \"m\""}, prompt: CodexCompactPrompt},
		{name: "array of tables first", old: "[[profiles_list]]\nx = 1\n", keep: []string{"[[profiles_list]]\nx = 1\n"}, prompt: CodexCompactPrompt},
		{name: "own compact_prompt kept", old: "compact_prompt = \"mine\"\n", keep: []string{"compact_prompt = \"mine\"\n"}, prompt: "mine"},
		{name: "own prompt file kept", old: "experimental_compact_prompt_file = \"/p\"\n", keep: []string{"experimental_compact_prompt_file = \"/p\"\n"}},
		{name: "already installed", old: ours, same: true, prompt: CodexCompactPrompt},
		{name: "another notesoup server refused", old: "[mcp_servers.notesoup]\ncommand = \"/elsewhere/notesoup\"\n", err: "refusing to overwrite"},
		{name: "other servers kept", old: "[mcp_servers.other]\ncommand = \"x\"\n", keep: []string{"[mcp_servers.other]\ncommand = \"x\"\n"}, prompt: CodexCompactPrompt},
		{name: "invalid TOML refused", old: "model = \n", err: "not valid TOML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs, err := mergeCodexConfig([]byte(tc.old), testBin)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) == 0 {
				t.Errorf("no message says what happened")
			}
			if tc.same && string(got) != tc.old {
				t.Errorf("unchanged config rewritten:\n%s", got)
			}
			for _, k := range tc.keep {
				if !strings.Contains(string(got), k) {
					t.Errorf("lost %q:\n%s", k, got)
				}
			}
			var m map[string]any
			if _, err := toml.Decode(string(got), &m); err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, got)
			}
			srv := m["mcp_servers"].(map[string]any)["notesoup"].(map[string]any)
			if srv["command"] != testBin {
				t.Errorf("command = %v", srv["command"])
			}
			tools := srv["tools"].(map[string]any)
			for _, tool := range codexWriteTools {
				if tools[tool].(map[string]any)["approval_mode"] != "approve" {
					t.Errorf("%s not approved", tool)
				}
			}
			if p, _ := m["compact_prompt"].(string); p != tc.prompt {
				t.Errorf("compact_prompt = %.60q, want %.60q", p, tc.prompt)
			}
			// Merging again changes nothing.
			again, _, err := mergeCodexConfig(got, testBin)
			if err != nil || string(again) != string(got) {
				t.Errorf("second merge changed the file (err %v)", err)
			}
		})
	}
}

func mustMerge(t *testing.T, old, bin string) []byte {
	t.Helper()
	b, _, err := mergeCodexConfig([]byte(old), bin)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeCodexHooks(t *testing.T) {
	other := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/stop.sh"}]}],` +
		`"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/x/lint.sh"}]}]}}`
	stale := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/old/notesoup hook codex SessionStart","timeout":30}]}]}}`
	tests := []struct {
		name     string
		old      string
		err      string
		keep     []string // commands that must remain
		messages []string
	}{
		{name: "no file", messages: []string{"SessionStart: added", "PostToolUse: added", "UserPromptSubmit: added"}},
		{name: "other hooks kept", old: other, keep: []string{"/x/stop.sh", "/x/lint.sh"}, messages: []string{"PostToolUse: added"}},
		{name: "stale notesoup path updated", old: stale, messages: []string{`updated notesoup's hook from "/old/notesoup hook codex SessionStart"`}},
		{name: "invalid JSON refused", old: "{", err: "not valid JSON"},
		{name: "hooks not an object refused", old: `{"hooks":[]}`, err: "not an object"},
		{name: "event not an array refused", old: `{"hooks":{"SessionStart":{}}}`, err: "not an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs, err := mergeCodexHooks([]byte(tc.old), testBin)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(msgs, "\n")
			for _, m := range tc.messages {
				if !strings.Contains(all, m) {
					t.Errorf("messages lack %q:\n%s", m, all)
				}
			}
			var doc struct {
				Hooks map[string][]struct {
					Matcher *string `json:"matcher"`
					Hooks   []struct {
						Command string `json:"command"`
					} `json:"hooks"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(got, &doc); err != nil {
				t.Fatal(err)
			}
			cmds := map[string]int{}
			for _, gs := range doc.Hooks {
				for _, g := range gs {
					for _, h := range g.Hooks {
						cmds[h.Command]++
					}
				}
			}
			for _, ev := range codexHookEvents {
				if n := cmds[codexHookCommand(testBin, ev)]; n != 1 {
					t.Errorf("%s: notesoup hook present %d times, want 1", ev, n)
				}
			}
			for _, k := range tc.keep {
				if cmds[k] != 1 {
					t.Errorf("lost hook %s", k)
				}
			}
			again, msgs, err := mergeCodexHooks(got, testBin)
			if err != nil || string(again) != string(got) || len(msgs) != 0 {
				t.Errorf("second merge changed the file: %v %v", msgs, err)
			}
		})
	}
}

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
	var rep installReport
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
	// Usage errors.
	for _, args := range [][]string{{"install"}, {"install", "claude"}, {"install", "codex", "extra"}} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestReplaceIfUnchangedRefusesAConcurrentWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("a = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The caller read "a = 0" but the file now holds "a = 1": someone wrote it.
	err := replaceIfUnchanged(p, []byte("a = 0\n"), []byte("b = 2\n"))
	if err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "a = 1\n" {
		t.Errorf("file overwritten: %q", b)
	}
	if err := replaceIfUnchanged(p, []byte("a = 1\n"), []byte("b = 2\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "b = 2\n" {
		t.Errorf("file = %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".config.toml.notesoup-*"))
	if len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestHookBinary(t *testing.T) {
	withFast, alone, plain := t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []struct {
		dir, name string
		mode      os.FileMode
	}{
		{withFast, "notesoup", 0o755}, {withFast, "notesoup-helper", 0o755},
		{alone, "notesoup", 0o755},
		{plain, "notesoup", 0o755}, {plain, "notesoup-helper", 0o644},
	} {
		if err := os.WriteFile(filepath.Join(f.dir, f.name), []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ name, bin, want string }{
		{"notesoup-helper beside", filepath.Join(withFast, "notesoup"), filepath.Join(withFast, "notesoup-helper")},
		{"none beside", filepath.Join(alone, "notesoup"), filepath.Join(alone, "notesoup")},
		{"not executable", filepath.Join(plain, "notesoup"), filepath.Join(plain, "notesoup")},
	}
	for _, tc := range tests {
		if got := hookBinary(tc.bin); got != tc.want {
			t.Errorf("%s: hookBinary = %q, want %q", tc.name, got, tc.want)
		}
	}
	// An install from that directory writes hooks that run notesoup-helper.
	home := t.TempDir()
	if _, errOut, code := runCLI(t, "install", "codex", "--codex-home", home, "--binary", filepath.Join(withFast, "notesoup")); code != 0 {
		t.Fatalf("install exit %d: %s", code, errOut)
	}
	hooks, err := os.ReadFile(filepath.Join(home, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(withFast, "notesoup-helper") + " hook codex PostToolUse"; !strings.Contains(string(hooks), want) {
		t.Errorf("hooks.json lacks %q:\n%s", want, hooks)
	}
}
