//go:build !light

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/notesoup/notesoup/mcpserver"
	"github.com/notesoup/notesoup/service"
)

func init() {
	register("mcp", mcpSummary, runMCP)
}

func runMCP(args []string, _, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	harnessName := fs.String("harness", os.Getenv("NOTESOUP_HARNESS"), "the client harness, one that notesoup plugins lists; binds the boot block in the server instructions and which tool call _meta key binds the session [$NOTESOUP_HARNESS]")
	session := fs.String("session", os.Getenv("NOTESOUP_SESSION"), "the client's session id, when known at start; otherwise each tool call's _meta binds it, under the harness's own key (Codex: threadId) [$NOTESOUP_SESSION]")
	cwd := fs.String("cwd", "", "the project directory (default: the current directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "notesoup mcp: unexpected arguments %v\n", fs.Args())
		return 2
	}
	if *cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(stderr, "notesoup mcp:", err)
			return 1
		}
		*cwd = wd
	}
	s, closeHost, err := newHostedService()
	if err != nil {
		fmt.Fprintln(stderr, "notesoup mcp:", err)
		return 1
	}
	defer closeHost()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := mcpserver.Config{
		Caller: service.Caller{Harness: *harnessName, Session: *session, Cwd: *cwd},
		Logger: newLogger("notesoup-mcp"),
	}
	if err := mcpserver.Run(ctx, s, cfg); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "notesoup mcp:", err)
		return 1
	}
	return 0
}
