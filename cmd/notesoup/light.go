//go:build light

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/internal/handover"
	"github.com/notesoup/notesoup/service"
)

// The light build: every command but the MCP server, plugin mode and the
// plugin listing runs here, calling the built-in harnesses in-process; those
// three, and any command once an external plugin overrides a harness, are
// handed to notesoup-host (see package handover).

func init() {
	preRun = handOverOverridden
	for name, summary := range map[string]string{"mcp": mcpSummary, "plugins": pluginsSummary, pluginModeArg: pluginModeSummary} {
		register(name, summary, func(args []string, _, stderr io.Writer) int {
			return handOverCommand(append([]string{name}, args...), stderr)
		})
	}
}

// handOverOverridden gives the whole command to notesoup-host when an
// external plugin overrides a harness: only the host can load it, and every
// front end must answer from the same harness. Nothing has read stdin yet.
func handOverOverridden(args []string) {
	if len(plugindir.Discover(plugindir.DefaultDirs())) == 0 {
		return
	}
	os.Exit(handOverCommand(args, os.Stderr))
}

// handOverCommand replaces this process with notesoup-host running args; it
// returns only when that fails.
func handOverCommand(args []string, stderr io.Writer) int {
	full, err := handover.Find(handover.HostBinary)
	if err == nil {
		err = handover.Exec(full, args)
	}
	fmt.Fprintf(stderr, "notesoup: this build hands %q to %s: %v\n", firstOr(args, "the command"), handover.HostBinary, err)
	return 1
}

func firstOr(args []string, or string) string {
	if len(args) == 0 {
		return or
	}
	return args[0]
}

// newService returns the service of a one-shot command: the built-in
// harnesses in-process (overrides were handed over before the command ran).
func newService(opts ...service.Option) (*service.Service, func(), error) {
	return serviceOver(&builtins.Local{}, func() {}, opts...)
}
