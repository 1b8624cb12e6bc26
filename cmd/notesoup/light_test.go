//go:build !light

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/host"
	"github.com/notesoup/notesoup/internal/handover"
	"github.com/notesoup/notesoup/internal/testbin"
)

// TestLightBuild: `make build`'s bin/notesoup is this command built with
// the "light" tag beside the plain build named notesoup-host. It must link
// none of the packages it leaves out, answer the one-shot commands itself,
// and hand the MCP server, plugin mode, the plugin listing and every
// command under an external plugin to notesoup-host.
func TestLightBuild(t *testing.T) {
	if pluginModeArg != host.PluginModeArg {
		t.Fatalf("pluginModeArg %q differs from host.PluginModeArg %q", pluginModeArg, host.PluginModeArg)
	}
	out, err := exec.Command("go", "list", "-tags", "light", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		for _, heavy := range []string{"google.golang.org/grpc", "google.golang.org/protobuf", "github.com/hashicorp/go-plugin", "github.com/hashicorp/go-hclog",
			"github.com/modelcontextprotocol/go-sdk", "golang.org/x/net/http2", "github.com/notesoup/notesoup/mcpserver", "github.com/notesoup/notesoup/contract/pluginrpc"} {
			if d == heavy || strings.HasPrefix(d, heavy+"/") || d == "github.com/notesoup/notesoup/host" {
				t.Errorf("the light build links %s", d)
			}
		}
	}

	bin := t.TempDir()
	light, full := filepath.Join(bin, "notesoup"), filepath.Join(bin, handover.HostBinary)
	for _, b := range []struct{ out, tags string }{{light, "light"}, {full, ""}} {
		if msg, err := exec.Command("go", "build", "-tags", b.tags, "-o", b.out, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", b.tags, err, msg)
		}
	}
	alone := filepath.Join(t.TempDir(), "notesoup")
	if data, err := os.ReadFile(light); err != nil || os.WriteFile(alone, data, 0o755) != nil {
		t.Fatalf("copying the light build: %v", err)
	}
	plugins := t.TempDir()
	testbin.TestPlugin(t, plugins, "claude")
	const limits = `{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"model_window":200000}}`
	tests := []struct {
		name      string
		bin       string
		args      []string
		pluginDir string
		stdin     string
		wantOut   string // substring of stdout
		wantErr   string // substring of stderr; the exit is then non-zero
	}{
		{name: "answers the helper itself", bin: light, args: []string{"helper"}, stdin: limits, wantOut: `"source":"claude: model window"`},
		{name: "hands the plugin listing over", bin: light, args: []string{"plugins", "--json"}, wantOut: `"source": "built-in"`},
		{name: "hands every command over under an external plugin", bin: light, args: []string{"helper"}, pluginDir: plugins, stdin: limits, wantOut: `"source":"testplugin"`},
		{name: "hands limits over under an external plugin", bin: light, args: []string{"limits", "--harness", "claude", "--json"}, pluginDir: plugins, wantOut: `"source": "testplugin"`},
		{name: "hands notes over under an external plugin", bin: light, args: []string{"notes", "list"}, pluginDir: plugins, wantOut: "No notes."},
		{name: "notes are handed over, not answered here", bin: alone, args: []string{"notes", "list"}, pluginDir: plugins, wantErr: "reinstall with `make build`"},
		{name: "says what to install without the full build", bin: alone, args: []string{"mcp"}, wantErr: "reinstall with `make build`"},
		{name: "the same under a plugin", bin: alone, args: []string{"helper"}, pluginDir: plugins, stdin: limits, wantErr: "reinstall with `make build`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(tc.bin, tc.args...)
			cmd.Env = append(testbin.SampleEnv(home), "NOTESOUP_PLUGIN_DIR="+tc.pluginDir, "PATH="+t.TempDir())
			cmd.Stdin = strings.NewReader(tc.stdin)
			testbin.Expect(t, cmd, tc.wantOut, tc.wantErr)
			if s, _ := cmd.Stderr.(*strings.Builder); s != nil && strings.Contains(s.String(), handover.HostBinary) {
				t.Errorf("stderr names the internal binary %s: %q", handover.HostBinary, s.String())
			}
		})
	}
}
