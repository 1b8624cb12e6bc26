//go:build !light

package main

import (
	"context"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/host"
	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/service"
)

// oneShot finds harnesses for a process that answers one request and exits
// (the helper, a hook, a history command). A built-in harness is called
// in-process: a plugin subprocess would cost its start and handshake (about
// 40 ms, see BENCHMARKS.md) for one call. A harness that an external plugin
// overrides goes through the plugin host, exactly as in the MCP server, so
// every front end answers from the same implementation.
type oneShot struct {
	local     builtins.Local
	overrides map[string]bool
	host      *host.Host
}

var _ service.Harnesses = (*oneShot)(nil)

func newOneShot() *oneShot {
	o := &oneShot{overrides: map[string]bool{}, host: newHost()}
	for _, e := range plugindir.Discover(plugindir.DefaultDirs()) {
		o.overrides[e.Name] = true
	}
	return o
}

// Names implements service.Harnesses: the built-ins and every external
// plugin, as the host sees them.
func (o *oneShot) Names() []string { return o.host.Names() }

// Harness implements service.Harnesses.
func (o *oneShot) Harness(ctx context.Context, name string) (contract.Harness, error) {
	if _, builtin := builtins.New(name); builtin && !o.overrides[name] {
		return o.local.Harness(ctx, name)
	}
	return o.host.Harness(ctx, name)
}

// Close stops any plugin the host started.
func (o *oneShot) Close() { o.host.Close() }

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
