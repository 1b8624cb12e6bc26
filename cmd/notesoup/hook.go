package main

import (
	"context"
	"io"
	"os"

	"github.com/notesoup/notesoup/plugins/codex/hook"
	"github.com/notesoup/notesoup/service"
)

func init() {
	register("hook", "answer a harness hook on stdin (codex SessionStart|PostToolUse|UserPromptSubmit): boot block, budget warning", runHook)
}

// runHook answers one Codex hook (see plugins/codex/hook); notesoup-helper
// answers the same from a binary that starts faster.
func runHook(args []string, stdout, stderr io.Writer) int {
	return hook.Main(context.Background(), "notesoup hook", func() (*service.Service, func(), error) { return newService() }, args, os.Stdin, stdout, stderr)
}
