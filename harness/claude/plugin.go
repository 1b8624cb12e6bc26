package claude

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// Name is the harness's name in selectors, window ids and plugin names
// (notesoup-harness-claude): Claude Code.
const Name = "claude"

// ResetTool is the reset tool's name as Claude Code shows it to the model:
// the mod registers empty_brain in plugin "notesoup", and Claude Code
// prefixes plugin tools with mcp__<plugin>__.
const ResetTool = "mcp__notesoup__empty_brain"

// SynthesizedWords are the words the decoder writes into event text itself:
// a line too long to read is shown as skippedText.
var SynthesizedWords = []string{"oversized", "line", "skipped"}

// Plugin returns the built-in Claude Code harness plugin. Its decoder emits
// the transcript's own text but for SynthesizedWords (raw_search).
func Plugin() *harness.Builtin {
	return &harness.Builtin{
		Name:      Name,
		Version:   version.Version,
		ResetTool: ResetTool,
		Roots: func() ([]string, error) {
			r, err := DefaultRoot()
			if err != nil {
				return nil, err
			}
			return []string{r}, nil
		},
		Files:        SessionFiles,
		DescribeFile: Describe,
		Decoder:      func([]string) history.Decoder { return Decoder{} },
		Notice:       IncompleteHistoryNotice,
		Resolve:      Thresholds,
		RawSearch:    true,
		Installer:    Installer,
		Doctor:       Doctor,

		SynthesizedWords: SynthesizedWords,
	}
}
