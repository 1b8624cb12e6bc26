// Package gemini is the Gemini CLI's side of notesoup's cross-harness
// history: it finds the Gemini CLI's chat files and decodes them into the
// harness-neutral events of shared/history.
//
// The Gemini CLI (0.61) records each chat as JSONL under
// ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl (GEMINI_CLI_HOME
// replaces the home directory), a subagent's chat as <id>.jsonl in a folder
// named for its parent session, and the project's directory in
// tmp/<project>/.project_root. The first line is the chat's metadata;
// message lines carry id, timestamp, type (user, gemini, info, warning,
// error), content, toolCalls (with their results) and thoughts; a message is
// written again, whole, each time it grows. Control lines patch the
// metadata ({"$set": …}, where "messages" replaces the history) and cut it
// ({"$rewindTo": id}). Older versions wrote one whole-file session-*.json.
package gemini

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// Name is the harness's name in selectors, window ids and plugin names
// (notesoup-harness-gemini): Google's Gemini CLI.
const Name = "gemini"

// ResetTool is empty: nothing notesoup can give the Gemini CLI empties its
// window on request, so a boot block must not offer a reset tool.
const ResetTool = ""

// Plugin returns the built-in Gemini CLI harness plugin. Its decoder emits
// the chat file's own text and nothing of its own (raw_search, no
// synthesized words).
func Plugin() *harness.Builtin {
	return &harness.Builtin{
		Name:         Name,
		Version:      version.Version,
		ResetTool:    ResetTool,
		Roots:        DefaultRoots,
		Files:        SessionFiles,
		DescribeFile: Describe,
		Decoder:      func([]string) history.Decoder { return Decoder{} },
		Resolve:      Thresholds,
		// The SessionStart hook gives each session its boot block; install
		// writes it and the MCP server into settings.json.
		Hook:      Hook,
		Installer: Installer,
		Doctor:    Doctor,

		RawSearch: true,
	}
}
