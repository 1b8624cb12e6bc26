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
// full build (internal/oneshot decides, internal/handover starts it). Their
// help and completion come from the same table here (hosted.go).

func init() {
	handOver := func(name string) func(args []string, _, stderr io.Writer) int {
		return func(args []string, _, stderr io.Writer) int {
			err := oneshot.HandOver(append([]string{name}, args...))
			fmt.Fprintln(stderr, "notesoup:", err)
			return exitError
		}
	}
	registerCommand(mcpCommand(handOver("mcp")))
	registerCommand(pluginsCommand(handOver("plugins")))
	register(pluginModeArg, pluginModeSummary, handOver(pluginModeArg))
}
