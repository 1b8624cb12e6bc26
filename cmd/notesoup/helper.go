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
	// history_list reads the index notesoup search keeps (never writes it).
	s, err := service.New(h, append([]service.Option{service.WithSearchCache(service.DefaultSearchCache())}, opts...)...)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return s, closeFn, nil
}

// newService returns the service of a one-shot command, whose harnesses
// follow internal/oneshot's policy; the caller calls the returned close.
// Every such command builds it here.
func newService(opts ...service.Option) (*service.Service, func(), error) {
	h := policy.Harnesses()
	return serviceOver(h, h.Close, opts...)
}

// runHelper answers one request.
func runHelper(args []string, stdout, stderr io.Writer) int {
	return helper.Main(context.Background(), "notesoup helper", func() (*service.Service, func(), error) { return newService() }, args, os.Stdin, stdout, stderr)
}
