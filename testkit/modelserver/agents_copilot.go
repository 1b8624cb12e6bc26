package modelserver

import (
	"path/filepath"
	"strings"
)

// copilotEnv returns the environment that points the GitHub Copilot CLI at
// serverURL through its bring-your-own-key provider: an OpenAI-compatible
// chat-completions endpoint (COPILOT_PROVIDER_BASE_URL, wire API
// "completions", the default) and COPILOT_MODEL. COPILOT_OFFLINE=true turns
// off GitHub sign-in, telemetry, web tools, the GitHub MCP server and
// auto-update, so the run needs no account and reaches nothing but the
// loopback server. COPILOT_HOME is named explicitly (it defaults to
// ~/.copilot) so the sessions land where SessionFiles looks. No API key is
// set: a local provider needs none, and none can then reach a transcript.
func (w *Workspace) copilotEnv(serverURL string) []string {
	return []string{
		"COPILOT_HOME=" + filepath.Join(w.Home, ".copilot"),
		"COPILOT_PROVIDER_BASE_URL=" + serverURL + "/v1",
		"COPILOT_MODEL=" + DefaultModel,
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
	}
}

// copilotSessions is where the Copilot CLI writes its sessions:
// $COPILOT_HOME/session-state/<id>/events.jsonl, beside workspace.yaml.
func (w *Workspace) copilotSessions() (string, func(string) bool) {
	root := filepath.Join(w.Home, ".copilot", "session-state")
	return root, func(p string) bool {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return false
		}
		parts := strings.Split(rel, string(filepath.Separator))
		return len(parts) == 2 && parts[1] == "events.jsonl"
	}
}
