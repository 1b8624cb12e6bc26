//go:build !light

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

// TestDoctorCLI: doctor on the command table. A wrong command line exits 2
// (as a JSON error under --json, stdout one object) and suggests the flag
// meant; --home names the notes home the notes row checks.
func TestDoctorCLI(t *testing.T) {
	doctorHome(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"doctor", "extra"}, `unexpected arguments ["extra"]`},
		{[]string{"doctor", "--jsn"}, `unknown flag --jsn (did you mean "--json"?)`},
		{[]string{"doctor", "--home"}, "--home needs a value"},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code != exitError || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	out, errOut, code := runCLI(t, "doctor", "--json", "extra")
	var e errorJSON
	if code != exitError || errOut != "" || json.Unmarshal([]byte(out), &e) != nil || e.Error.Code != codeUsage {
		t.Errorf("doctor --json extra: exit %d, stdout %q, stderr %q; want 2 and a JSON usage error", code, out, errOut)
	}

	other := filepath.Join(t.TempDir(), "elsewhere")
	out, _, _ = runCLI(t, "doctor", "--json", "--home", other)
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json --home: %v\n%s", err, out)
	}
	found := false
	for _, c := range rep.Checks {
		if c.Subject == "notes" && c.Item == "home" {
			found = strings.HasPrefix(c.Detail, other+" ")
		}
	}
	if !found {
		t.Errorf("the notes home row does not check --home %s:\n%s", other, out)
	}
}

// TestDoctorExternalPlugins: an external plugin (OpenCode's, say) is a row
// of its own naming its file; a file named like a plugin that cannot run
// is a problem with its fix. Doctor does not start the plugin: its
// harness's wiring is the plugin's to know.
func TestDoctorExternalPlugins(t *testing.T) {
	doctorHome(t)
	dir := t.TempDir()
	t.Setenv("NOTESOUP_PLUGIN_DIR", dir)
	plugin := filepath.Join(dir, "notesoup-harness-opencode")
	started := filepath.Join(dir, "started")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\ntouch "+started+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notesoup-harness-broken"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, rows := doctorJSON(t)
	if c := rows["plugins/opencode"]; c.Status != harness.CheckOK || !strings.HasPrefix(c.Detail, plugin+" ") {
		t.Errorf("plugins/opencode = %+v, want ok naming %s", c, plugin)
	}
	if c := rows["plugins/broken"]; c.Status != harness.CheckProblem || c.Fix == "" {
		t.Errorf("plugins/broken = %+v, want a problem with a fix", c)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1 (a problem)", code)
	}
	if _, err := os.Stat(started); err == nil {
		t.Errorf("doctor started the plugin")
	}
}
