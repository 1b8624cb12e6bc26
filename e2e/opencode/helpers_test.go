package opencode

import (
	"fmt"
	"path/filepath"
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
