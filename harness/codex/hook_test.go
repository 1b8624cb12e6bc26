package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/internal/testbin"
)

func TestReadHookInput(t *testing.T) {
	tests := []struct {
		name, event, in, err string
	}{
		{"session start", "SessionStart", `{"session_id":"01a2-x","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`, ""},
		{"no event name is accepted", "PostToolUse", `{"session_id":"a","cwd":"/w"}`, ""},
		{"not JSON", "SessionStart", `hello`, "not Codex's hook JSON"},
		{"event mismatch", "PostToolUse", `{"session_id":"a","cwd":"/w","hook_event_name":"Stop"}`, "does not match"},
		{"path in session id", "SessionStart", `{"session_id":"../../etc","cwd":"/w"}`, "not a Codex thread id"},
		{"empty session id", "SessionStart", `{"cwd":"/w"}`, "not a Codex thread id"},
		{"relative cwd", "SessionStart", `{"session_id":"a","cwd":"w"}`, "not an absolute directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readHookInput(strings.NewReader(tc.in), tc.event, "/c")
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

// hookEnv is an isolated CODEX_HOME with one thread and a notes home.
type hookEnv struct {
	codexHome, notesHome, path, id, cwd string
	argv                                []string // the hook command, without the event
}

func newHookEnv(t *testing.T, argv []string, limit int) *hookEnv {
	t.Helper()
	dir := t.TempDir()
	e := &hookEnv{codexHome: filepath.Join(dir, "codex"), notesHome: filepath.Join(dir, "notes"), id: "01a2cccc-0000-7000-8000-00000000000c", cwd: filepath.Join(dir, "work"), argv: argv}
	if err := os.MkdirAll(e.cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	e.path = filepath.Join(e.codexHome, "sessions", "2026", "12", "02", "rollout-2026-12-02T11-00-00-"+e.id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(e.path), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("model = \"fake-model\"\nmodel_provider = \"fake\"\nmodel_auto_compact_token_limit = %d\n", limit)
	if err := os.WriteFile(filepath.Join(e.codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *hookEnv) write(t *testing.T, steps ...string) {
	t.Helper()
	if err := os.WriteFile(e.path, []byte(liveRollout(e.id, steps...)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hookCommands are the two builds that answer Codex's hooks: the full
// notesoup (`go install`) and the light one (`make build`'s bin/notesoup).
// Both must answer alike; the tests that run a process run each.
func hookCommands(t *testing.T) []hookRunner {
	t.Helper()
	full, err := testbin.Notesoup()
	if err != nil {
		t.Fatal(err)
	}
	light, err := testbin.Light()
	if err != nil {
		t.Fatal(err)
	}
	return []hookRunner{{"full", []string{full, "hook", "codex"}}, {"light", []string{light, "hook", "codex"}}}
}

// hookRunner is one command that answers hooks, without the event.
type hookRunner struct {
	name string
	argv []string
}

// eachHookCommand runs f once per hook command.
func eachHookCommand(t *testing.T, f func(t *testing.T, argv []string)) {
	for _, c := range hookCommands(t) {
		t.Run(c.name, func(t *testing.T) { f(t, c.argv) })
	}
}

// hook runs e's hook command for event the way Codex does (JSON on stdin)
// and returns the additional context it answered ("" for none).
func (e *hookEnv) hook(t *testing.T, event, source string) string {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"session_id": e.id, "transcript_path": e.path, "cwd": e.cwd,
		"hook_event_name": event, "model": "fake-model", "source": source})
	cmd := exec.Command(e.argv[0], append(e.argv[1:], event)...)
	// No background vault sync: it would outlive the test's folders.
	cmd.Env = append(os.Environ(), "CODEX_HOME="+e.codexHome, "NOTESOUP_HOME="+e.notesHome, VaultSyncEnv+"=off")
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook %s: %v: %s", event, err, errb.String())
	}
	if errb.Len() > 0 {
		t.Fatalf("hook %s said on stderr: %s", event, errb.String())
	}
	if out.Len() == 0 {
		return ""
	}
	var o hookOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("hook %s answered %q: %v", event, out.String(), err)
	}
	if o.HookSpecificOutput.HookEventName != event {
		t.Errorf("hookEventName = %q, want %q", o.HookSpecificOutput.HookEventName, event)
	}
	return o.HookSpecificOutput.AdditionalContext
}

func TestCodexHookBootWindow(t *testing.T) { eachHookCommand(t, testCodexHookBootWindow) }

func testCodexHookBootWindow(t *testing.T, argv []string) {
	tests := []struct {
		name, source string
		steps        []string
		ordinal      int
	}{
		{"startup", "startup", []string{"user"}, 0},
		{"after a compaction", "compact", []string{"user", "usage 80000", "compacted"}, 1},
		{"after two", "compact", []string{"user", "compacted", "usage 9", "compacted"}, 2},
		{"resume keeps the window", "resume", []string{"user", "compacted", "usage 9"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newHookEnv(t, argv, 60000)
			e.write(t, tc.steps...)
			got := e.hook(t, SessionStart, tc.source)
			want := fmt.Sprintf(`<notesoup-boot window="codex:%s:%d">`, e.id, tc.ordinal)
			if !strings.HasPrefix(got, want) {
				t.Errorf("boot starts %.80q, want %q", got, want)
			}
			if !strings.Contains(got, codexNoReset) {
				t.Errorf("boot lacks the Codex notice")
			}
		})
	}
	t.Run("startup before Codex wrote the rollout", func(t *testing.T) {
		e := newHookEnv(t, argv, 60000)
		got := e.hook(t, SessionStart, "startup")
		if want := fmt.Sprintf(`window="codex:%s:0"`, e.id); !strings.Contains(got, want) {
			t.Errorf("boot %.80q lacks %s", got, want)
		}
	})
}

func TestCodexHookBudgetWarning(t *testing.T) { eachHookCommand(t, testCodexHookBudgetWarning) }

func testCodexHookBudgetWarning(t *testing.T, argv []string) {
	// Limit 60,000 → hard 51,808, warning 35,424 with the default margins.
	e := newHookEnv(t, argv, 60000)
	steps := []struct {
		name   string
		event  string
		add    []string
		warned bool
	}{
		{"below the warning point", PostToolUse, []string{"user", "usage 30000"}, false},
		{"crossing it warns", PostToolUse, []string{"usage 40000"}, true},
		{"once per window", PostToolUse, []string{"usage 45000"}, false},
		{"not at prompt submit either", UserPromptSubmit, []string{"count 46000"}, false},
		{"a compaction opens a new window", PostToolUse, []string{"compacted", "count 0", "usage 3000"}, false},
		{"which warns again at prompt submit", UserPromptSubmit, []string{"usage 50000"}, true},
		{"once", PostToolUse, []string{"usage 51000"}, false},
	}
	var all []string
	for _, s := range steps {
		all = append(all, s.add...)
		e.write(t, all...)
		got := e.hook(t, s.event, "")
		if s.warned != strings.HasPrefix(got, "notesoup budget warning") {
			t.Fatalf("%s: answer %.100q, warned want %v", s.name, got, s.warned)
		}
		if s.warned && !strings.Contains(got, "tokens left before Codex compacts") {
			t.Errorf("%s: warning lacks the countdown: %s", s.name, got)
		}
	}
}

func TestCodexWarningText(t *testing.T) {
	for _, tc := range []struct {
		ctx, native int64
		want        string
	}{
		{40000, 60000, "About 20,000 tokens left"},
		{70000, 60000, "About 0 tokens left"},
		{0, 1234567, "About 1,234,567 tokens left"},
	} {
		got := warningText(tc.ctx, tc.native)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "empty_brain") {
			t.Errorf("warningText(%d, %d) = %q, want %q and no empty_brain", tc.ctx, tc.native, got, tc.want)
		}
	}
}

func TestCodexHookDisabled(t *testing.T) { eachHookCommand(t, testCodexHookDisabled) }

func testCodexHookDisabled(t *testing.T, argv []string) {
	e := newHookEnv(t, argv, 60000)
	e.write(t, "user", "usage 50000")
	for _, event := range []string{SessionStart, PostToolUse} {
		in := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":%q,"source":"startup"}`, e.id, e.path, e.cwd, event)
		cmd := exec.Command(e.argv[0], append(e.argv[1:], event)...)
		cmd.Env = append(os.Environ(), "CODEX_HOME="+e.codexHome, "NOTESOUP_HOME="+e.notesHome, "NOTESOUP_DISABLED=1")
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.Output()
		if err != nil || len(out) != 0 {
			t.Errorf("%s with NOTESOUP_DISABLED: err %v, answered %q", event, err, out)
		}
	}
	// The same input without the switch does answer (the test can fail).
	if got := e.hook(t, PostToolUse, ""); !strings.HasPrefix(got, "notesoup budget warning") {
		t.Errorf("without NOTESOUP_DISABLED: %.80q", got)
	}
}

// TestMain removes the binaries built for these tests.
func TestMain(m *testing.M) { testbin.Main(m) }

func TestIsThreadID(t *testing.T) {
	for id, want := range map[string]bool{
		"01a2cccc-0000-7000-8000-00000000000c": true,
		strings.Repeat("a", 64):                true,
		strings.Repeat("a", 65):                false,
		"":                                     false,
		"a_b":                                  false,
		"a/b":                                  false,
		"..":                                   false,
		"é":                                    false,
		"A-Z-09":                               true,
	} {
		if got := isThreadID(id); got != want {
			t.Errorf("isThreadID(%q) = %v, want %v", id, got, want)
		}
	}
}
