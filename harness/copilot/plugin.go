// Package copilot is the GitHub Copilot CLI's side of notesoup's
// cross-harness history: it finds the Copilot CLI's sessions and decodes
// them into the harness-neutral events of shared/history.
//
// The Copilot CLI (1.0) keeps each session in a folder
// $COPILOT_HOME/session-state/<id>/ (COPILOT_HOME defaults to ~/.copilot):
// events.jsonl, one event a line, appended as the session runs and resumed,
// and workspace.yaml, the session's summary (id, cwd, name, times). Every
// event is {"type", "data", "id", "parentId", "timestamp"}, with "agentId"
// on a sub-agent's events; the types this package shows are user.message,
// assistant.message (its toolRequests are the model's calls),
// tool.execution_start and tool.execution_complete (a call's result),
// session.compaction_complete (a summary replacing the older context),
// session.context_cleared, session.snapshot_rewind (events withdrawn),
// session.error and session.warning. The CLI's schema of them ships with it
// as schemas/session-events.schema.json.
package copilot

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// Name is the harness's name in selectors, window ids and plugin names
// (notesoup-harness-copilot): GitHub's Copilot CLI.
const Name = "copilot"

// ResetTool is empty: nothing notesoup can give the Copilot CLI empties its
// window on request, so a boot block must not offer a reset tool.
const ResetTool = ""

// SynthesizedWords are the words the decoder writes into event text itself:
// skippedText's (Description.SynthesizedWords).
var SynthesizedWords = []string{"oversized", "line", "skipped"}

// skippedText is the notice that stands for one event too large to read
// (over jsonl.MaxLineBytes): its address is kept and the rest of the
// session stays readable. Its line number is the event's Line.
const skippedText = "[oversized line skipped]"

// Plugin returns the built-in Copilot CLI harness plugin. Its decoder emits
// the session file's own text but for SynthesizedWords (raw_search).
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
		// The sessionStart hook gives each session its boot block; install
		// writes it into settings.json and the MCP server into
		// mcp-config.json.
		Hook:      Hook,
		Installer: Installer,
		Doctor:    Doctor,

		RawSearch:        true,
		SynthesizedWords: SynthesizedWords,
	}
}
