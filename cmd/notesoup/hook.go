package main

import (
	"context"
	"io"
	"os"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
)

func init() {
	register("hook", "answer a harness's hook on stdin: hook <harness> <event> (written by notesoup install <harness>)", runHook)
}

// runHook answers one hook of the harness args name, through that
// built-in's own handler (harness/builtins). Harnesses run hooks on every
// event, which is why the light build answers them without the plugin host.
func runHook(args []string, stdout, stderr io.Writer) int {
	return builtins.RunHook(context.Background(), "notesoup hook", func() (*service.Service, func(), error) { return newService() }, args, os.Stdin, stdout, stderr)
}
