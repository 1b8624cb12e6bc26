//go:build !light

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/shared/reset"
)

// TestOneShotHonoursOverrides: with the real plugin host, a one-shot
// command calls the built-ins in-process, but a harness an external plugin
// overrides is the plugin's answer, as it is in the MCP server.
func TestOneShotHonoursOverrides(t *testing.T) {
	dir := t.TempDir()
	testbin.TestPlugin(t, dir, "pi")
	t.Setenv("NOTESOUP_PLUGIN_DIR", dir)
	t.Setenv("NOTESOUP_HOME", t.TempDir())
	o := policy.Harnesses()
	defer o.Close()
	ctx := context.Background()
	tests := []struct {
		name       string
		inProcess  bool
		wantSource string // Thresholds source; "" = the built-in's own
	}{
		{name: "claude", inProcess: true},
		{name: "codex", inProcess: true},
		{name: "pi", wantSource: "testplugin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hz, err := o.Harness(ctx, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if _, local := hz.(*harness.Builtin); local != tc.inProcess {
				t.Errorf("in-process = %v, want %v (%T)", local, tc.inProcess, hz)
			}
			pt, err := hz.Thresholds(ctx, reset.ThresholdInput{ModelWindow: 200000})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantSource != "" && pt.Source != tc.wantSource {
				t.Errorf("Thresholds source = %q, want the override's %q", pt.Source, tc.wantSource)
			}
			if tc.wantSource == "" && pt.Source == "testplugin" {
				t.Errorf("the built-in %s answered from the test plugin", tc.name)
			}
		})
	}
}

// TestNotesAndLimitsUnderAPlugin: `notesoup notes` and `notesoup limits`
// answer through the service like every other front end, so an external
// plugin that overrides a harness is the one `limits` asks, and the notes
// commands keep working beside it.
func TestNotesAndLimitsUnderAPlugin(t *testing.T) {
	plugins := t.TempDir()
	testbin.TestPlugin(t, plugins, "pi")
	t.Setenv("NOTESOUP_PLUGIN_DIR", plugins)
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("NOTESOUP_HOME", home)
	t.Setenv("HOME", home)
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantSource string // limits --json: the native point's source
		wantOut    string // otherwise: a substring of stdout
	}{
		{name: "limits asks the overriding plugin", args: []string{"limits", "--harness", "pi", "--window", "200000", "--json"}, wantSource: "testplugin"},
		{name: "limits of a harness no plugin overrides", args: []string{"limits", "--harness", "claude", "--window", "200000", "--json"}, wantSource: "claude: model window"},
		{name: "notes write", args: []string{"notes", "write", "plan.md", "--cwd", proj}, stdin: "# Plan\n", wantOut: "Created plan.md"},
		{name: "notes read", args: []string{"notes", "read", "plan.md", "--cwd", proj}, wantOut: "1\t# Plan"},
		{name: "notes list", args: []string{"notes", "list", "--cwd", proj}, wantOut: "plan.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			notesStdin = strings.NewReader(tc.stdin)
			out, errs, code := runCLI(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if tc.wantSource == "" {
				if !strings.Contains(out, tc.wantOut) {
					t.Fatalf("stdout %q lacks %q", out, tc.wantOut)
				}
				return
			}
			var got struct {
				Native reset.NativePoint `json:"native"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.Native.Source != tc.wantSource {
				t.Fatalf("native source %q (%v), want %q; stdout %s", got.Native.Source, err, tc.wantSource, out)
			}
		})
	}
}
