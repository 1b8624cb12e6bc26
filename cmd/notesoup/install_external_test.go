package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallFallsBackToExternalPlugin: `notesoup install|uninstall NAME`
// for a harness with no built-in installer runs the external plugin
// notesoup-harness-NAME with the verb and the flags, passes its output and
// exit code through, and adds --binary on install when none was given; a
// name no plugin provides is still refused.
func TestInstallFallsBackToExternalPlugin(t *testing.T) {
	home := t.TempDir()
	plugins := filepath.Join(home, "plugins")
	if err := os.MkdirAll(plugins, 0o700); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"args: $*\"\necho oops >&2\n[ \"$1\" = uninstall ] && exit 3\nexit 0\n"
	if err := os.WriteFile(filepath.Join(plugins, "notesoup-harness-fakecli"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("NOTESOUP_HOME", home)
	t.Setenv("NOTESOUP_PLUGIN_DIR", plugins)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))

	for _, tc := range []struct {
		verb     string
		args     []string
		code     int
		wantArgs string
	}{
		{"install", []string{"fakecli", "--binary", "/x/notesoup", "--dry-run"}, 0, "args: install --binary /x/notesoup --dry-run"},
		{"install", []string{"fakecli", "--dry-run"}, 0, "args: install --dry-run --binary /"},
		{"uninstall", []string{"fakecli", "--opencode-config=/c"}, 3, "args: uninstall --opencode-config=/c"},
		{"install", []string{"nosuchcli"}, 2, ""},
	} {
		var out, errb bytes.Buffer
		code := runInstaller(tc.verb, tc.args, &out, &errb)
		if code != tc.code {
			t.Errorf("%s %v: exit %d, want %d (stderr %s)", tc.verb, tc.args, code, tc.code, errb.String())
			continue
		}
		if tc.wantArgs == "" {
			if !strings.Contains(errb.String(), "no installer") {
				t.Errorf("%s %v: stderr %q does not say there is no installer", tc.verb, tc.args, errb.String())
			}
			continue
		}
		if !strings.Contains(out.String(), tc.wantArgs) || !strings.Contains(errb.String(), "oops") {
			t.Errorf("%s %v: stdout %q (want %q), stderr %q (want the plugin's)", tc.verb, tc.args, out.String(), tc.wantArgs, errb.String())
		}
	}
}
