//go:build !light

package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/notesoup/notesoup/mcpserver"
	"github.com/notesoup/notesoup/service"
)

func init() {
	registerCommand(mcpCommand(runMCP))
}

func runMCP(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["mcp"], args, stdout, stderr)
	var o mcpOpts
	fs := newFlags("mcp")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return inv.usageErr("unexpected arguments %v", pos)
	}
	harnessName, session, cwd := &o.harness, &o.session, &o.cwd
	if *cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return inv.fail(err)
		}
		*cwd = wd
	}
	s, closeHost, err := newHostedService()
	if err != nil {
		return inv.fail(err)
	}
	defer closeHost()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := mcpserver.Config{
		Caller: service.Caller{Harness: *harnessName, Session: *session, Cwd: *cwd},
		Logger: newLogger("notesoup-mcp"),
	}
	if err := mcpserver.Run(ctx, s, cfg); err != nil && ctx.Err() == nil {
		return inv.fail(err)
	}
	return 0
}
