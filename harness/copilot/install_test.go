package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/jsonedit"
	"github.com/notesoup/notesoup/shared/reset"
)

// TestInstallUninstallRoundTrip: install writes the MCP server and the
// sessionStart hook into a .copilot folder (with and without files of the
// person's own), a second install changes nothing, and uninstall gives
// back each file byte for byte (or removes the files install created).
func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name          string
		mcp, settings string // "" = no file
	}{
		{"no files", "", ""},
		{"their own servers and settings, with comments", "{\n  \"mcpServers\": {\n    \"github\": {\"type\": \"http\", \"url\": \"https://example.invalid\"}\n  }\n}\n",
			"{\n  // mine\n  \"model\": \"gpt-5\",\n  \"hooks\": {\n    \"sessionStart\": [\n      {\"type\": \"command\", \"bash\": \"echo hi\"}\n    ]\n  }\n}\n"},
		{"empty hooks of their own", "{}", "{\"hooks\": {}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, text string) {
				if text != "" {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			write(mcpConfigFile, tc.mcp)
			write(settingsFile, tc.settings)
			req := harness.InstallRequest{Home: dir, Binary: "/opt/note soup/notesoup"}
			rep, err := Install(req)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Changed) != 2 {
				t.Fatalf("changed %v, want both files", rep.Changed)
			}
			var mcp struct {
				MCPServers map[string]mcpServer `json:"mcpServers"`
			}
			readJSON(t, filepath.Join(dir, mcpConfigFile), &mcp)
			if s := mcp.MCPServers[serverName]; s.Command != req.Binary || strings.Join(s.Args, " ") != "mcp --harness copilot" || s.Type != "local" {
				t.Fatalf("mcpServers.notesoup = %+v", s)
			}
			var settings struct {
				Hooks map[string][]hookConfig `json:"hooks"`
			}
			readJSON(t, filepath.Join(dir, settingsFile), &settings)
			hooks := settings.Hooks[SessionStart]
			if len(hooks) == 0 || hooks[len(hooks)-1].Bash != "'/opt/note soup/notesoup' hook copilot sessionStart" {
				t.Fatalf("hooks.sessionStart = %+v", hooks)
			}
			if strings.Contains(tc.settings, "// mine") && !strings.Contains(string(mustRead(t, filepath.Join(dir, settingsFile))), "// mine") {
				t.Fatal("the person's comment was lost")
			}
			// Idempotent.
			if rep, err = Install(req); err != nil || len(rep.Changed) != 0 {
				t.Fatalf("second install changed %v (%v)", rep.Changed, err)
			}
			if _, err := Uninstall(req); err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{mcpConfigFile: tc.mcp, settingsFile: tc.settings} {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if want == "" {
					if !os.IsNotExist(err) {
						t.Errorf("%s left behind: %q", name, got)
					}
					continue
				}
				if string(got) != want {
					t.Errorf("%s after uninstall:\n%q\nwant\n%q", name, got, want)
				}
			}
		})
	}
}

// TestInstallRefusesTheirServer: an mcpServers.notesoup of a person's own
// is neither replaced by install nor removed by uninstall; a broken file
// stops install before either file is written.
func TestInstallRefusesTheirServer(t *testing.T) {
	dir := t.TempDir()
	theirs := "{\"mcpServers\": {\"notesoup\": {\"type\": \"local\", \"command\": \"my-notes\", \"args\": []}}}"
	os.WriteFile(filepath.Join(dir, mcpConfigFile), []byte(theirs), 0o600)
	req := harness.InstallRequest{Home: dir, Binary: "/bin/notesoup"}
	if _, err := Install(req); err == nil || !strings.Contains(err.Error(), "not one notesoup install wrote") {
		t.Fatalf("their server was not refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, settingsFile)); !os.IsNotExist(err) {
		t.Fatal("settings.json written although install was refused")
	}
	rep, err := Uninstall(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, filepath.Join(dir, mcpConfigFile))); got != theirs || !strings.Contains(strings.Join(rep.Messages, "\n"), "is kept") {
		t.Fatalf("uninstall touched their server: %q %v", got, rep.Messages)
	}

	os.WriteFile(filepath.Join(dir, settingsFile), []byte("{\"hooks\": [}"), 0o600)
	os.Remove(filepath.Join(dir, mcpConfigFile))
	if _, err := Install(req); err == nil || !strings.Contains(err.Error(), settingsFile) {
		t.Fatalf("broken settings.json not reported by name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, mcpConfigFile)); !os.IsNotExist(err) {
		t.Fatal("mcp-config.json written although settings.json was broken")
	}
}

// TestInstallDryRunAndRebinary: a dry run previews both files and writes
// nothing; an install for another binary updates the server and the hook.
func TestInstallDryRunAndRebinary(t *testing.T) {
	dir := t.TempDir()
	rep, err := Install(harness.InstallRequest{Home: dir, Binary: "/a/notesoup", DryRun: true})
	if err != nil || len(rep.Preview) != 2 {
		t.Fatalf("dry run: %v, %d previews", err, len(rep.Preview))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("dry run wrote %v", entries)
	}
	if _, err := Install(harness.InstallRequest{Home: dir, Binary: "/a/notesoup"}); err != nil {
		t.Fatal(err)
	}
	rep, err = Install(harness.InstallRequest{Home: dir, Binary: "/b/notesoup"})
	if err != nil || len(rep.Changed) != 2 {
		t.Fatalf("rebinary: %v, changed %v", err, rep.Changed)
	}
	for _, f := range []string{mcpConfigFile, settingsFile} {
		if b := string(mustRead(t, filepath.Join(dir, f))); strings.Contains(b, "/a/notesoup") || !strings.Contains(b, "/b/notesoup") {
			t.Fatalf("%s still runs the old binary:\n%s", f, b)
		}
	}
}

// fakeEnv is the HookEnv of the hook tests.
type fakeEnv struct {
	ordinal    int
	ordErr     error
	gotSession string
}

func (f *fakeEnv) WindowOrdinal(_ context.Context, session, _ string) (int, error) {
	return f.ordinal, f.ordErr
}
func (f *fakeEnv) Boot(_ context.Context, session, cwd string, ord int, notices []string) (string, error) {
	f.gotSession = session
	return "<boot " + session + ":" + string(rune('0'+ord)) + ">", nil
}
func (f *fakeEnv) Limits(context.Context, reset.ThresholdInput) (reset.Limits, error) {
	return reset.Limits{}, nil
}
func (f *fakeEnv) StateDir() string { return "" }

// TestHook: the sessionStart payload Copilot sends gets the boot as
// additionalContext; a hostile or foreign payload is refused with exit 1
// and nothing on stdout; a resumed session that cannot be found fails.
func TestHook(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ordErr   error
		code     int
		want     string
	}{
		{"new", `{"sessionId":"10e66795-febd-42cf-9068-b8f42a5fd3fa","timestamp":1,"cwd":"/w","source":"new","initialPrompt":"hi"}`, os.ErrNotExist, 0, "<boot 10e66795-febd-42cf-9068-b8f42a5fd3fa:0>"},
		{"resume", `{"sessionId":"abc","cwd":"/w","source":"resume"}`, nil, 0, "<boot abc:2>"},
		{"resume not found", `{"sessionId":"abc","cwd":"/w","source":"resume"}`, os.ErrNotExist, 1, ""},
		{"path in id", `{"sessionId":"../x","cwd":"/w","source":"new"}`, nil, 1, ""},
		{"relative cwd", `{"sessionId":"abc","cwd":"w","source":"new"}`, nil, 1, ""},
		{"not json", `hello`, nil, 1, ""},
		{"oversized", `{"sessionId":"abc","cwd":"/w","initialPrompt":"` + strings.Repeat("x", maxHookInput) + `"}`, nil, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &fakeEnv{ordinal: 2, ordErr: tc.ordErr}
			var out, errb bytes.Buffer
			code := runHook(context.Background(), harness.HookCall{Prog: "notesoup hook copilot", Event: SessionStart,
				Open:  func() (harness.HookEnv, func(), error) { return env, func() {}, nil },
				Stdin: strings.NewReader(tc.in), Stdout: &out, Stderr: &errb})
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %s)", code, tc.code, errb.String())
			}
			if tc.code != 0 {
				if out.Len() != 0 || errb.Len() == 0 {
					t.Fatalf("failure wrote stdout %q, stderr %q", out.String(), errb.String())
				}
				return
			}
			var got hookOutput
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.AdditionalContext != tc.want {
				t.Fatalf("answer %q (%v), want additionalContext %q", out.String(), err, tc.want)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(jsonedit.BlankComments(mustRead(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
