package helper_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/internal/testbin"
)

// TestSlimHelperHandsOverToPlugins: notesoup-helper cannot load plugins, so
// when an external plugin overrides a harness it hands the request to
// `notesoup helper` beside it, and says what to do when there is none.
func TestSlimHelperHandsOverToPlugins(t *testing.T) {
	slim, err := testbin.Helper()
	if err != nil {
		t.Fatal(err)
	}
	plugins := t.TempDir()
	testbin.TestPlugin(t, plugins, "claude")
	alone := filepath.Join(t.TempDir(), "notesoup-helper")
	data, err := os.ReadFile(slim)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	const limits = `{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"model_window":200000}}`
	tests := []struct {
		name      string
		bin       string
		pluginDir string
		wantOut   string // substring of stdout
		wantErr   string // substring of stderr; the exit is then non-zero
	}{
		{name: "no override: answered in-process", bin: slim, wantOut: `"ok":true`},
		{name: "override: notesoup beside answers through the plugin", bin: slim, pluginDir: plugins, wantOut: `"source":"testplugin"`},
		{name: "override, no notesoup anywhere", bin: alone, pluginDir: plugins, wantErr: "overrides the harness \"claude\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(tc.bin)
			cmd.Env = append(testbin.SampleEnv(home), "NOTESOUP_PLUGIN_DIR="+tc.pluginDir, "PATH="+t.TempDir())
			cmd.Stdin = strings.NewReader(limits)
			out := testbin.Expect(t, cmd, tc.wantOut, tc.wantErr)
			if tc.pluginDir == "" && strings.Contains(out, "testplugin") {
				t.Errorf("answered from a plugin with no override: %s", out)
			}
		})
	}
}
