package modelserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// fakeGeminiKey is the Gemini CLI's API key: it only reaches the loopback
// server, which redacts x-goog-api-key from its log.
const fakeGeminiKey = "fake-gemini-key"

// GeminiModel is the model the Gemini CLI is run with (-m). Naming one
// skips the CLI's model router, whose classifier request would otherwise
// take a scripted turn; a real model name keeps its 1,048,576-token limit,
// which its compression threshold is a fraction of.
const GeminiModel = "gemini-2.5-flash"

// geminiEnv writes ~/.gemini/settings.json (API-key auth, merged with
// extra) and returns the environment that points the Gemini CLI at
// serverURL. With GOOGLE_GEMINI_BASE_URL alone the CLI would pick its
// "gateway" auth, which headless mode refuses; the settings name the API
// key auth, which then takes the base URL (plain http on loopback is
// accepted). The workspace is trusted so headless runs need no prompt.
func (w *Workspace) geminiEnv(serverURL string, extra map[string]any) ([]string, error) {
	settings := map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}}
	mergeJSON(settings, extra)
	raw, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("modelserver: gemini settings: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(w.Home, ".gemini", "settings.json"), string(raw)+"\n"); err != nil {
		return nil, err
	}
	return []string{"GEMINI_API_KEY=" + fakeGeminiKey, "GOOGLE_GEMINI_BASE_URL=" + serverURL,
		"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_HOME=" + w.Home}, nil
}

// mergeJSON merges src into dst, object by object; other values replace.
func mergeJSON(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if d, ok := dst[k].(map[string]any); ok {
				mergeJSON(d, sub)
				continue
			}
		}
		dst[k] = v
	}
}

// geminiSessions is where the Gemini CLI writes its chats, under
// $GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/: session-*.jsonl, and a
// subagent's <id>.jsonl in a folder named for its parent session.
func (w *Workspace) geminiSessions() (string, func(string) bool) {
	root := filepath.Join(w.Home, ".gemini", "tmp")
	return root, func(p string) bool {
		rel, err := filepath.Rel(root, p)
		if err != nil || !strings.HasSuffix(p, ".jsonl") {
			return false
		}
		parts := strings.Split(rel, string(filepath.Separator))
		return len(parts) >= 3 && parts[1] == "chats"
	}
}
