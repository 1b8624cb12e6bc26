//go:build !light

package main

import (
	"github.com/notesoup/notesoup/internal/oneshot"
	"github.com/notesoup/notesoup/service"
)

// The full build has the plugin host, so one-shot commands load external
// plugins themselves (internal/oneshot) instead of handing the command over.
func init() {
	policy.NewHost = func() oneshot.Host { return newHost() }
}

// newHostedService returns the service of a long-lived process, which calls
// every harness through the plugin host: a harness that panics or hangs
// takes down its own plugin, not the process.
func newHostedService(opts ...service.Option) (*service.Service, func(), error) {
	h := newHost()
	return serviceOver(h, h.Close, opts...)
}
