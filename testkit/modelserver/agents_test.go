package modelserver

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCommandIsolation checks each harness's command: the parent's
// environment (here a real-looking key) does not leak, HOME and the base
// URL point at the workspace and the server, and the provider config files
// name the server.
func TestCommandIsolation(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-real-looking")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-real-looking")
	const url = "http://127.0.0.1:12345"
	tests := []struct {
		h        Harness
		opts     AgentOptions
		wantEnv  []string
		files    map[string]string // path under Home → substring it must hold
		notFiles []string
	}{
		{Claude, AgentOptions{}, []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=" + fakeAnthropicKey, "IS_SANDBOX=1"}, nil,
			[]string{".pi/agent/models.json", ".codex/config.toml"}},
		{Pi, AgentOptions{PiSettings: `{"compaction":{"enabled":true}}`, PiContextWindow: 64000}, []string{"PI_OFFLINE=1"},
			map[string]string{".pi/agent/models.json": `"baseUrl":"` + url + `/v1"`, ".pi/agent/settings.json": `"compaction"`}, nil},
		{Pi, AgentOptions{}, []string{"PI_OFFLINE=1"}, map[string]string{".pi/agent/models.json": `"contextWindow":32000`},
			[]string{".pi/agent/settings.json"}},
		{Codex, AgentOptions{CodexConfig: "[mcp_servers.echo]\ncommand = \"/bin/echomcp\"", Env: []string{"EXTRA=1"}},
			[]string{"FAKE_API_KEY=" + fakeCodexKey, "EXTRA=1"},
			map[string]string{".codex/config.toml": `base_url = "` + url + `/v1"`}, nil},
	}
	for _, tc := range tests {
		t.Run(string(tc.h), func(t *testing.T) {
			w, err := NewWorkspace(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cmd, err := w.Command(context.Background(), tc.h, "/bin/true", url, tc.opts, "arg")
			if err != nil {
				t.Fatal(err)
			}
			if cmd.Dir != w.Work || !reflect.DeepEqual(cmd.Args, []string{"/bin/true", "arg"}) {
				t.Fatalf("dir %s args %q", cmd.Dir, cmd.Args)
			}
			env := strings.Join(cmd.Env, "\n")
			for _, bad := range []string{"sk-real-looking", "sk-ant-real-looking"} {
				if strings.Contains(env, bad) {
					t.Fatalf("parent credential leaked into the environment:\n%s", env)
				}
			}
			for _, want := range append(tc.wantEnv, "HOME="+w.Home) {
				if !contains(cmd.Env, want) {
					t.Fatalf("env lacks %s:\n%s", want, env)
				}
			}
			for rel, want := range tc.files {
				b, err := os.ReadFile(filepath.Join(w.Home, rel))
				if err != nil || !strings.Contains(string(b), want) {
					t.Fatalf("%s: %v; want it to contain %q:\n%s", rel, err, want, b)
				}
			}
			if tc.opts.CodexConfig != "" {
				b, _ := os.ReadFile(filepath.Join(w.Home, ".codex/config.toml"))
				if !strings.Contains(string(b), "[mcp_servers.echo]") {
					t.Fatalf("extra codex config missing:\n%s", b)
				}
			}
			for _, rel := range tc.notFiles {
				if _, err := os.Stat(filepath.Join(w.Home, rel)); err == nil {
					t.Fatalf("%s written for %s", rel, tc.h)
				}
			}
			if err := cmd.Run(); err != nil {
				t.Fatalf("running the command: %v", err)
			}
		})
	}
}

// TestSessionFiles lays out each harness's storage by hand and checks only
// session files are listed.
func TestSessionFiles(t *testing.T) {
	w, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	touch := func(rel string) {
		p := filepath.Join(w.Home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{
		".claude/projects/-w/a.jsonl", ".claude/projects/-w/a/subagents/agent-x.jsonl", ".claude/projects/-w/a/subagents/agent-x.meta.json",
		".pi/agent/sessions/--w--/t_1.jsonl", ".pi/agent/models.json",
		".codex/sessions/2026/12/02/rollout-2026-12-02T10-00-00-u.jsonl", ".codex/sessions/2026/12/02/other.jsonl",
	} {
		touch(rel)
	}
	tests := []struct {
		h    Harness
		want []string
	}{
		{Claude, []string{".claude/projects/-w/a.jsonl", ".claude/projects/-w/a/subagents/agent-x.jsonl"}},
		{Pi, []string{".pi/agent/sessions/--w--/t_1.jsonl"}},
		{Codex, []string{".codex/sessions/2026/12/02/rollout-2026-12-02T10-00-00-u.jsonl"}},
	}
	for _, tc := range tests {
		got, err := w.SessionFiles(tc.h)
		if err != nil {
			t.Fatal(err)
		}
		var rel []string
		for _, g := range got {
			r, _ := filepath.Rel(w.Home, g)
			rel = append(rel, r)
		}
		if !reflect.DeepEqual(rel, tc.want) {
			t.Errorf("%s: %q, want %q", tc.h, rel, tc.want)
		}
	}
	empty, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := empty.SessionFiles(Codex); err != nil || len(got) != 0 {
		t.Fatalf("empty workspace: %q, %v", got, err)
	}
}

func TestCLIPathErrors(t *testing.T) {
	if _, err := CLIPath(t.TempDir(), Claude); err == nil || !strings.Contains(err.Error(), "e2e/install.sh") {
		t.Fatalf("missing CLI: err %v, want a pointer to e2e/install.sh", err)
	}
	if _, err := CLIPath(".", Harness("smoke-signals")); err == nil || !strings.Contains(err.Error(), "unknown harness") {
		t.Fatalf("unknown harness: err %v", err)
	}
}
