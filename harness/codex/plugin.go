package codex

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// ResetTool is the reset tool's name as the notesoup MCP server exposes it
// to Codex (Codex shows MCP tools to the model under their own names).
const ResetTool = "empty_brain"

// Plugin returns the built-in Codex harness plugin.
func Plugin() *harness.Builtin {
	return &harness.Builtin{
		Name:      history.HarnessCodex,
		Version:   version.Version,
		ResetTool: ResetTool,
		Roots:     DefaultRoots,
		Sessions:  ListSessions,
		Decoder:   func(roots []string) history.Decoder { return Decoder{Roots: roots} },
		Resolve:   Thresholds,
	}
}
