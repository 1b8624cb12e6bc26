package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallerRoundTrip: install writes mcp.notesoup into opencode.json
// (or opencode.jsonc when that is the one there) and plugin/notesoup.js
// with the binary in it; a second install changes nothing; uninstall gives
// the config back byte for byte (or removes the file install created) and
// removes the plugin file and its folder.
func TestInstallerRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, file, text string }{
		{"no config", "opencode.json", ""},
		{"their config with comments", "opencode.json", "{\n  // mine\n  \"mcp\": {\n    \"gh\": {\"type\": \"remote\", \"url\": \"https://example.invalid\"}\n  }\n}\n"},
		{"jsonc only", "opencode.jsonc", "{\n\t\"theme\": \"dark\" // mine\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			if tc.text != "" {
				os.WriteFile(path, []byte(tc.text), 0o644)
			}
			bin := `/opt/my "notes"/notesoup`
			var out, errb bytes.Buffer
			if code := runInstaller("install", []string{"--opencode-config", dir, "--binary", bin}, &out, &errb); code != 0 {
				t.Fatalf("install exit %d: %s", code, errb.String())
			}
			cfg, _ := os.ReadFile(path)
			if !strings.Contains(string(cfg), `"opencode"`) || !strings.Contains(string(cfg), `"mcp"`) || !strings.Contains(string(cfg), `/opt/my \"notes\"/notesoup`) {
				t.Fatalf("%s after install:\n%s", tc.file, cfg)
			}
			if tc.text != "" && strings.Contains(tc.text, "// mine") && !strings.Contains(string(cfg), "// mine") {
				t.Fatal("the person's comment was lost")
			}
			js, err := os.ReadFile(filepath.Join(dir, "plugin", "notesoup.js"))
			if err != nil || !bytes.HasPrefix(js, []byte(pluginMarker)) || !strings.Contains(string(js), `const NOTESOUP = "/opt/my \"notes\"/notesoup"`) {
				t.Fatalf("plugin file (%v):\n%.400s", err, js)
			}
			out.Reset()
			if code := runInstaller("install", []string{"--opencode-config", dir, "--binary", bin}, &out, &errb); code != 0 || strings.Contains(out.String(), "wrote") {
				t.Fatalf("second install (exit %d) wrote: %s", code, out.String())
			}
			if code := runInstaller("uninstall", []string{"--opencode-config", dir}, &out, &errb); code != 0 {
				t.Fatalf("uninstall exit %d: %s", code, errb.String())
			}
			got, err := os.ReadFile(path)
			if tc.text == "" {
				if !os.IsNotExist(err) {
					t.Fatalf("config install created left behind: %q", got)
				}
			} else if string(got) != tc.text {
				t.Fatalf("after uninstall:\n%q\nwant\n%q", got, tc.text)
			}
			if _, err := os.Stat(filepath.Join(dir, "plugin")); !os.IsNotExist(err) {
				t.Fatalf("plugin folder left behind (%v)", err)
			}
		})
	}
}

// TestInstallerRefuses: a person's own mcp.notesoup or plugin/notesoup.js
// is neither replaced nor removed; a relative --binary and broken JSON
// are refused; a dry run writes nothing.
func TestInstallerRefuses(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := runInstaller(args[0], append([]string{"--opencode-config", dir}, args[1:]...), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, _ := run("install", "--binary", "/b/notesoup", "--dry-run"); code != 0 {
		t.Fatal("dry run failed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("dry run wrote %v", entries)
	}
	if code, msg := run("install", "--binary", "notesoup"); code != 1 || !strings.Contains(msg, "absolute") {
		t.Fatalf("relative binary: %d %s", code, msg)
	}
	theirs := `{"mcp": {"notesoup": {"type": "local", "command": ["my-notes"]}}}`
	cfg := filepath.Join(dir, "opencode.json")
	os.WriteFile(cfg, []byte(theirs), 0o600)
	if code, msg := run("install", "--binary", "/b/notesoup"); code != 1 || !strings.Contains(msg, "not one notesoup install wrote") {
		t.Fatalf("their server: %d %s", code, msg)
	}
	if code, _ := run("uninstall"); code != 0 {
		t.Fatal("uninstall failed")
	}
	if got, _ := os.ReadFile(cfg); string(got) != theirs {
		t.Fatalf("their server touched: %s", got)
	}
	os.WriteFile(cfg, []byte("{\"mcp\": {},}"), 0o600)
	if code, msg := run("install", "--binary", "/b/notesoup"); code != 1 || !strings.Contains(msg, "opencode.json") {
		t.Fatalf("broken JSON: %d %s", code, msg)
	}
	os.Remove(cfg)
	os.MkdirAll(filepath.Join(dir, "plugin"), 0o700)
	os.WriteFile(filepath.Join(dir, "plugin", "notesoup.js"), []byte("// my own\n"), 0o600)
	if code, msg := run("install", "--binary", "/b/notesoup"); code != 1 || !strings.Contains(msg, "not one notesoup install wrote") {
		t.Fatalf("their plugin file: %d %s", code, msg)
	}
	if code, msg := run("uninstall"); code != 0 || !strings.Contains(msg, "is kept") {
		t.Fatalf("uninstall with their plugin file: %d %s", code, msg)
	}
}
