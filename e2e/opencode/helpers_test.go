package opencode

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/internal/handover"
)

// CLIPath is the pinned OpenCode's native binary, relative to the
// repository, as e2e/install.sh lays it out (the npm launcher is a node
// script that only picks this binary).
const CLIPath = ".tools/npm/node_modules/opencode-linux-x64/bin/opencode"

// fakeKey is the provider's API key: OpenCode insists on one, and it
// reaches only the loopback server.
const fakeKey = "sk-fake"

// Config is OpenCode's configuration for a run against the model server
// at serverURL: one provider, "fake", through the OpenAI-compatible AI SDK
// package (bundled in the binary: nothing is downloaded), with a model
// whose context limit is contextTokens, so a test can reach the automatic
// compaction.
func Config(serverURL string, contextTokens int) string {
	return fmt.Sprintf(`{"$schema":"https://opencode.ai/config.json","model":"fake/fake-model","autoupdate":false,"share":"disabled",`+
		`"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","name":"Fake loopback","options":{"baseURL":%q,"apiKey":%q},`+
		`"models":{"fake-model":{"name":"Fake Model","limit":{"context":%d,"output":4096}}}}}}`,
		serverURL+"/v1", fakeKey, contextTokens)
}

// Env is the whole environment of an OpenCode run: emptied of the
// machine's, HOME and every XDG directory inside home (so its database is
// home/.local/share/opencode/opencode.db), the configuration in
// OPENCODE_CONFIG_CONTENT, and no models.dev fetch or self-update.
func Env(home, tmp, serverURL string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + tmp, "TZ=UTC",
		"LANG=C.UTF-8", "SHELL=/bin/bash", "TERM=dumb", "NO_COLOR=1",
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"OPENCODE_CONFIG_CONTENT=" + Config(serverURL, 32000),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
	}
}

// openCodeCLI returns the pinned OpenCode's binary under repo, failing the
// test with the fix when it or ripgrep is missing: OpenCode's search tools
// run ripgrep, and a machine without it would fail in a way that looks
// like OpenCode's fault.
func openCodeCLI(t *testing.T, repo string) string {
	t.Helper()
	bin := filepath.Join(repo, CLIPath)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("OpenCode is not installed at %s: run e2e/install.sh", bin)
	}
	if _, err := exec.LookPath("rg"); err != nil {
		t.Fatalf("ripgrep (rg) is not on PATH; OpenCode needs it: install ripgrep (apt-get install ripgrep, brew install ripgrep)")
	}
	return bin
}

// buildRelease builds the plugin (the module in repo's pluginDir) into a
// plugin folder of its own, and notesoup as a release ships it: the light
// notesoup with notesoup-host beside it (the host loads external
// plugins). It returns the plugin folder and notesoup's path.
func buildRelease(t *testing.T, repo string) (plugins, notesoup string) {
	t.Helper()
	plugins, bin := t.TempDir(), t.TempDir()
	goBuild(t, filepath.Join(repo, pluginDir), "-o", filepath.Join(plugins, "notesoup-harness-"+harness), ".")
	notesoup = filepath.Join(bin, "notesoup")
	goBuild(t, repo, "-tags", "light", "-o", notesoup, "./cmd/notesoup")
	goBuild(t, repo, "-o", filepath.Join(bin, handover.HostBinary), "./cmd/notesoup")
	return plugins, notesoup
}
