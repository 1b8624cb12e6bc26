package codex

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// Name is the harness's name in selectors, window ids and plugin names
// (notesoup-harness-codex): OpenAI Codex CLI.
const Name = "codex"

// ResetTool is empty: Codex has no reset tool. An MCP tool cannot end a
// Codex turn or start its compaction, and no hook can answer one
// (docs/harnesses.md), so the boot block must not tell the model to call one.
const ResetTool = ""

// SynthesizedWords are the words the decoder writes into event text itself:
// a failed turn's error is shown after turnFailed, "[turn failed] ", and a
// line too long to read is shown as skippedText.
var SynthesizedWords = []string{"turn", "failed", "oversized", "line", "skipped"}

// skippedText is the notice that stands for one record too large to read
// (over jsonl.MaxLineBytes): its address is kept and the rest of the
// rollout stays readable. Its line number is the event's Line.
const skippedText = "[oversized line skipped]"

// Plugin returns the built-in Codex harness plugin. Its decoder emits the
// rollout's own text (raw_search), and a paginated fork inherits its
// parent's rows (forks; see Inherits).
func Plugin() *harness.Builtin {
	return &harness.Builtin{
		Name:         Name,
		Version:      version.Version,
		ResetTool:    ResetTool,
		Roots:        DefaultRoots,
		Files:        SessionFiles,
		DescribeFile: Describe,
		Decoder:      func(roots []string) history.Decoder { return Decoder{Roots: roots} },
		Resolve:      Thresholds,
		// Codex sends its thread id with each MCP tool call as
		// _meta.threadId (codex.md §9): it binds "the current session".
		SessionMetaKey: "threadId",
		Hook:           Hook,
		Installer:      Installer,
		Doctor:         Doctor,

		RawSearch:        true,
		SynthesizedWords: SynthesizedWords,
		ForkParents:      Inherits,
	}
}
