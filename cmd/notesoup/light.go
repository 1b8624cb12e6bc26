//go:build light

package main

import (
	"fmt"
	"io"

	"github.com/notesoup/notesoup/internal/oneshot"
)

// The light build: every command but the MCP server, plugin mode and the
// plugin listing runs here, calling the built-in harnesses in-process; those
// three, and any command once an external plugin exists, are handed to the
// full build (internal/oneshot decides, internal/handover starts it).

func init() {
	for name, summary := range map[string]string{"mcp": mcpSummary, "plugins": pluginsSummary, pluginModeArg: pluginModeSummary} {
		register(name, summary, func(args []string, _, stderr io.Writer) int {
			err := oneshot.HandOver(append([]string{name}, args...))
			fmt.Fprintln(stderr, "notesoup:", err)
			return 1
		})
	}
}
