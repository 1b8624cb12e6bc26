package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/reset"
)

const testBin = "/opt/notesoup/bin/notesoup"

// TestInstallRoundTrip: install adds the MCP server and the SessionStart,
// AfterTool and BeforeAgent hooks to whatever settings.json holds, comments and layout kept; a second
// install changes nothing; uninstall gives back the original bytes, or
// removes the file when nothing but notesoup's was in it (no file, an
// empty one, or an empty object as install writes one).
func TestInstallRoundTrip(t *testing.T) {
	cases := []struct {
		name   string
		before *string // nil: no file
	}{
		{name: "no file"},
		{name: "empty file", before: ptr("")},
		{name: "empty object", before: ptr("{}")},
		{name: "empty object on two lines", before: ptr("{\n}\n")},
		{name: "auth only, with comments", before: ptr("{\n  // how I sign in\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}} /* keep */\n}\n")},
		{name: "one line", before: ptr(`{"model":{"name":"gemini-2.5-pro"}}`)},
		{name: "tabs", before: ptr("{\n\t\"ui\": {\n\t\t\"theme\": \"Dracula\"\n\t}\n}")},
		{name: "other servers", before: ptr("{\n    \"mcpServers\": {\n        // my tools\n        \"echo\": {\"command\": \"echo\"}\n    }\n}\n")},
		{name: "empty mcpServers and hooks", before: ptr("{\"mcpServers\": {}, \"hooks\": {}}\n")},
		{name: "other hooks", before: ptr("{\n  \"hooks\": {\n    \"BeforeTool\": [{\"matcher\": \"run_shell_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}],\n    \"SessionStart\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}\n    ]\n  }\n}\n")},
		{name: "empty SessionStart", before: ptr("{\"hooks\": {\"SessionStart\": []}}")},
		{name: "own AfterTool and BeforeAgent hooks", before: ptr("{\n  \"hooks\": {\n    \"AfterTool\": [{\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}],\n    \"BeforeAgent\": []\n  }\n}\n")},
		{name: "comment-like strings", before: ptr(`{"context": {"fileName": "//GEMINI.md"}, "x": "/* not a comment */"}`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, settingsFile)
			if tc.before != nil {
				if err := os.WriteFile(path, []byte(*tc.before), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			req := harness.InstallRequest{Home: dir, Binary: testBin}
			rep, err := Install(req)
			if err != nil {
				t.Fatalf("install: %v", err)
			}
			if len(rep.Changed) != 1 {
				t.Fatalf("install changed %v, want settings.json", rep.Changed)
			}
			after := read(t, path)
			checkInstalled(t, after, testBin)
			if tc.before != nil {
				for _, c := range []string{"// how I sign in", "/* keep */", "// my tools", "\"audit\"", "echo hi", "Dracula"} {
					if strings.Contains(*tc.before, c) && !strings.Contains(after, c) {
						t.Errorf("install lost %q:\n%s", c, after)
					}
				}
				if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
					t.Errorf("mode %v, want the file's own 0640", st.Mode().Perm())
				}
			}
			// Idempotent.
			rep, err = Install(req)
			if err != nil || len(rep.Changed) != 0 || read(t, path) != after {
				t.Fatalf("second install: changed %v, err %v", rep.Changed, err)
			}
			// Uninstall gives back the bytes.
			if _, err := Uninstall(req); err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if tc.before == nil || *tc.before == "" || *tc.before == emptyFile {
				// Nothing but notesoup's was in it: the file goes, as Gemini
				// reads no file and an empty one alike.
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Fatalf("uninstall left the file install created: %v\n%s", err, read(t, path))
				}
				return
			}
			if got := read(t, path); got != *tc.before {
				t.Fatalf("after uninstall:\n%q\nwant the original:\n%q", got, *tc.before)
			}
		})
	}
}

// checkInstalled parses settings as Gemini would and checks notesoup's
// entries.
func checkInstalled(t *testing.T, text, bin string) {
	t.Helper()
	s, err := parseSettings([]byte(text))
	if err != nil {
		t.Fatalf("installed settings do not parse: %v\n%s", err, text)
	}
	cmd, _ := reset.Lookup(s, "mcpServers", "notesoup", "command")
	args, _ := reset.Lookup(s, "mcpServers", "notesoup", "args")
	trust, _ := reset.Lookup(s, "mcpServers", "notesoup", "trust")
	if cmd != bin || strings.Join(toStrings(args), " ") != "mcp --harness gemini" || trust != true {
		t.Errorf("mcpServers.notesoup = %v %v trust %v\n%s", cmd, args, trust, text)
	}
	for _, ev := range HookEvents {
		groups, _ := reset.Lookup(s, "hooks", ev)
		list, _ := groups.([]any)
		n := 0
		for _, g := range list {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				if h.(map[string]any)["command"] == bin+" hook gemini "+ev {
					n++
				}
			}
		}
		if n != 1 {
			t.Errorf("%d notesoup %s hooks, want 1:\n%s", n, ev, text)
		}
	}
}

func toStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func ptr(s string) *string { return &s }

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInstallRefusesAndUpdates: a person's own mcpServers.notesoup is
// refused, a file Gemini could not read is refused naming its line, and an
// install of another binary is updated in place and said.
func TestInstallRefusesAndUpdates(t *testing.T) {
	cases := []struct {
		name, before, err, msg, bin string
	}{
		{name: "a person's own notesoup server", before: `{"mcpServers": {"notesoup": {"command": "npx", "args": ["notesoup-mcp"]}}}`, err: "not one notesoup install wrote"},
		{name: "trailing comma", before: "{\n  \"a\": 1,\n}\n", err: "not valid JSON at line 3"},
		{name: "not an object", before: `["x"]`, err: "is not a JSON object; Gemini refuses it too"},
		{name: "mcpServers not an object", before: `{"mcpServers": []}`, err: `"mcpServers" is not an object`},
		{name: "hooks.SessionStart not an array", before: `{"hooks": {"SessionStart": {}}}`, err: `"hooks.SessionStart" is not an array`},
		{name: "another binary is updated", bin: "/old/notesoup",
			msg: "mcpServers.notesoup ran /old/notesoup; it now runs " + testBin},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, settingsFile)
			if tc.bin != "" {
				if _, err := Install(harness.InstallRequest{Home: dir, Binary: tc.bin}); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
				t.Fatal(err)
			}
			before := read(t, path)
			rep, err := Install(harness.InstallRequest{Home: dir, Binary: testBin})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) {
					t.Fatalf("install error %v, want one naming %s and %q", err, path, tc.err)
				}
				if read(t, path) != before {
					t.Fatalf("a refused install changed the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(rep.Messages, "\n"), tc.msg) {
				t.Errorf("messages %q lack %q", rep.Messages, tc.msg)
			}
			after := read(t, path)
			checkInstalled(t, after, testBin)
			if strings.Contains(after, tc.bin) {
				t.Errorf("the old binary is still wired:\n%s", after)
			}
			// A person's own server survives uninstall.
		})
	}
	// Uninstall keeps a notesoup server install did not write.
	dir := t.TempDir()
	own := `{"mcpServers": {"notesoup": {"command": "npx", "args": ["notesoup-mcp"]}}}`
	if err := os.WriteFile(filepath.Join(dir, settingsFile), []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Uninstall(harness.InstallRequest{Home: dir})
	if err != nil || read(t, filepath.Join(dir, settingsFile)) != own || !strings.Contains(strings.Join(rep.Messages, "\n"), "install did not write it") {
		t.Fatalf("uninstall of a person's own server: %v %q", err, rep.Messages)
	}
}

// TestInstallDryRunAndLinks: --dry-run writes nothing and previews the
// file; a symbolic link (a dotfiles link) is written through and stays a
// link, and uninstall empties the linked file rather than removing it; a
// dangling link is refused naming it.
func TestInstallDryRunAndLinks(t *testing.T) {
	dir := t.TempDir()
	rep, err := Install(harness.InstallRequest{Home: dir, Binary: testBin, DryRun: true})
	if err != nil || len(rep.Preview) != 1 || !strings.Contains(rep.Preview[0].Content, `"notesoup"`) {
		t.Fatalf("dry run: %v %+v", err, rep)
	}
	if _, err := os.Stat(filepath.Join(dir, settingsFile)); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote settings.json")
	}

	dots := filepath.Join(t.TempDir(), "dotfiles-gemini.json")
	if err := os.WriteFile(dots, []byte("{\n  // mine\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, settingsFile)
	if err := os.Symlink(dots, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(harness.InstallRequest{Home: dir, Binary: testBin}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a link: %v", err)
	}
	checkInstalled(t, read(t, dots), testBin)
	if _, err := Uninstall(harness.InstallRequest{Home: dir}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dots); got != "{\n  // mine\n}\n" {
		t.Fatalf("linked file after uninstall: %q", got)
	}

	dangling := t.TempDir()
	if err := os.Symlink(filepath.Join(dangling, "nowhere.json"), filepath.Join(dangling, settingsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(harness.InstallRequest{Home: dangling, Binary: testBin}); err == nil || !strings.Contains(err.Error(), "nowhere.json") {
		t.Fatalf("dangling link: %v", err)
	}
}

// TestInstallQuotesTheBinary: a binary path with spaces or quotes is
// quoted for the shell Gemini runs the hook command in.
func TestInstallQuotesTheBinary(t *testing.T) {
	for bin, want := range map[string]string{
		"/usr/bin/notesoup":      "/usr/bin/notesoup hook gemini SessionStart",
		"/My Tools/notesoup":     "'/My Tools/notesoup' hook gemini SessionStart",
		"/it's/notesoup":         `'/it'\''s/notesoup' hook gemini SessionStart`,
		"/a/$(touch x)/notesoup": "'/a/$(touch x)/notesoup' hook gemini SessionStart",
	} {
		if got := hookCommand(bin, SessionStart); got != want {
			t.Errorf("hookCommand(%q) = %q, want %q", bin, got, want)
		}
	}
}
