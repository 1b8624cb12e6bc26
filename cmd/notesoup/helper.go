package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/notesoup/notesoup/helper"
	"github.com/notesoup/notesoup/service"
)

func init() {
	register("helper", "answer one helper-protocol JSON request from stdin (see docs/helper-protocol.md)", runHelper)
}

// newService returns the service of a one-shot command (see oneShot); the
// caller calls the returned close. Every such command builds it here.
func newService(opts ...service.Option) (*service.Service, func(), error) {
	h := newOneShot()
	return serviceOver(h, h.Close, opts...)
}

// newHostedService returns the service of a long-lived process, which calls
// every harness through the plugin host: a harness that panics or hangs
// takes down its own plugin, not the process.
func newHostedService(opts ...service.Option) (*service.Service, func(), error) {
	h := newHost()
	return serviceOver(h, h.Close, opts...)
}

func serviceOver(h service.Harnesses, closeFn func(), opts ...service.Option) (*service.Service, func(), error) {
	s, err := service.New(h, append([]service.Option{service.WithLogger(newLogger("notesoup"))}, opts...)...)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return s, closeFn, nil
}

// runHelper answers one request. Exit status 0 means an answer (result or
// structured error) was written; non-zero means the helper could not answer.
func runHelper(args []string, stdout, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintln(stderr, "notesoup helper: takes no arguments; write one JSON request to stdin")
		return 2
	}
	s, closeHost, err := newService()
	if err != nil {
		fmt.Fprintln(stderr, "notesoup helper:", err)
		return 1
	}
	defer closeHost()
	if err := helper.Serve(context.Background(), s, os.Stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "notesoup helper: writing the response:", err)
		return 1
	}
	return 0
}
