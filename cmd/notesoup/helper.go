package main

import (
	"context"
	"io"
	"os"

	"github.com/notesoup/notesoup/helper"
	"github.com/notesoup/notesoup/service"
)

func init() {
	register("helper", "answer one helper-protocol JSON request from stdin (see docs/helper-protocol.md)", runHelper)
}

// serviceOver returns the service over h; closeFn releases h.
func serviceOver(h service.Harnesses, closeFn func(), opts ...service.Option) (*service.Service, func(), error) {
	s, err := service.New(h, opts...)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return s, closeFn, nil
}

// runHelper answers one request. cmd/notesoup-helper gives the same answer
// from a binary that starts faster.
func runHelper(args []string, stdout, stderr io.Writer) int {
	return helper.Main(context.Background(), "notesoup helper", func() (*service.Service, func(), error) { return newService() }, args, os.Stdin, stdout, stderr)
}
