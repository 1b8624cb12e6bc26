package pi

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// Name is the harness's name in selectors, window ids and plugin names
// (notesoup-harness-pi): the Pi coding agent.
const Name = "pi"

// ResetTool is the reset tool's name as the Pi extension registers it.
const ResetTool = "empty_brain"

// SynthesizedWords are the words the decoder writes into event text itself:
// a bash execution renders as "Ran `cmd`" and a failed model request's
// error follows requestFailed, "[request failed] ", and a line too long to
// read is shown as skippedText.
var SynthesizedWords = []string{"ran", "request", "failed", "oversized", "line", "skipped"}

// skippedText is the notice that stands for one entry too large to read
// (over jsonl.MaxLineBytes): its address is kept and the rest of the
// session stays readable. Its line number is the event's Line.
const skippedText = "[oversized line skipped]"

// Plugin returns the built-in Pi harness plugin. Its decoder emits the
// file's own text but for SynthesizedWords (raw_search).
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
		Installer:    Installer,
		Doctor:       Doctor,

		RawSearch:        true,
		SynthesizedWords: SynthesizedWords,
	}
}
