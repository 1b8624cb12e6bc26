// Command notesoup-helper answers what a harness runs on every turn, exactly
// as the notesoup binary does, from a binary built to start fast:
//
//	notesoup-helper                    one helper-protocol request on stdin (= notesoup helper; docs/helper-protocol.md)
//	notesoup-helper hook HARNESS EVENT one harness hook, Codex's (= notesoup hook HARNESS EVENT)
//
// The Claude Code mod and the Pi extension run the helper once per hook or
// tool call, and Codex runs its hook command for every event, so the start
// is paid on every turn. The notesoup binary links gRPC, protobuf and the MCP
// SDK, whose package initialisation alone costs more than the answer; this
// binary links none of them: it calls the built-in harnesses in-process
// (harness/builtins). When an external plugin overrides a harness, answering
// needs the plugin host, so it hands the request, unread, to the notesoup
// binary (beside it, else on PATH) by replacing itself with it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/helper"
	"github.com/notesoup/notesoup/internal/oneshot"
	"github.com/notesoup/notesoup/service"
)

// name is how messages name this command.
const name = "notesoup-helper"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The notesoup command line that answers the same: `helper`, or the
	// hook command as given.
	same := append([]string{"helper"}, args...)
	if len(args) > 0 && args[0] == "hook" {
		same = args
	}
	var policy oneshot.Policy // no plugin host in this binary
	if err := policy.Start(same); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	open := func() (*service.Service, func(), error) {
		h := policy.Harnesses()
		s, err := service.New(h)
		if err != nil {
			h.Close()
			return nil, nil, err
		}
		return s, h.Close, nil
	}
	if len(args) > 0 && args[0] == "hook" {
		return builtins.RunHook(context.Background(), name+" hook", open, args[1:], stdin, stdout, stderr)
	}
	return helper.Main(context.Background(), name, open, args, stdin, stdout, stderr)
}
