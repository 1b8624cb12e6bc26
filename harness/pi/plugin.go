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

// Plugin returns the built-in Pi harness plugin.
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
	}
}
