// Package pluginrpc carries the harness contract between processes: the
// go-plugin handshake, the versioned plugin sets, the gRPC client and server
// shims, and Serve, which runs a contract.Harness as a plugin. It is kept
// small on purpose (in the style of go-plugin's examples/grpc), so an
// external harness needs only this package, contract and the generated
// harnesspb.
package pluginrpc

import (
	"os"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/notesoup/notesoup/contract"
)

// PluginName is the key of the harness plugin in every plugin set.
const PluginName = "harness"

// Handshake is the go-plugin handshake. The magic cookie is not security: it
// only stops a person from running a plugin binary by hand and seeing gRPC
// noise instead of a hint. ProtocolVersion here is go-plugin's base version;
// the contract version is negotiated through VersionedPlugins.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "NOTESOUP_HARNESS_PLUGIN",
	MagicCookieValue: "a8f1d3c4e5b6-notesoup-harness",
}

// PluginSets returns the versioned plugin sets for impl, as both the host
// (with a nil impl) and plugins (with their implementation) pass them to
// go-plugin.
func PluginSets(impl contract.Harness) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		contract.Version: {PluginName: &GRPCPlugin{Impl: impl}},
	}
}

// Serve runs impl as a go-plugin server on stdin/stdout. It returns when the
// host closes the connection or dies.
func Serve(impl contract.Harness, opts ...ServeOption) {
	cfg := &plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: PluginSets(impl),
		GRPCServer:       plugin.DefaultGRPCServer,
	}
	for _, o := range opts {
		o(cfg)
	}
	WatchParent()
	plugin.Serve(cfg)
}

// ServeOption adjusts how Serve runs a plugin.
type ServeOption func(*plugin.ServeConfig)

// WithServeVersions serves impl under the given contract versions instead of
// contract.Version. Tests use it to build a plugin that speaks another version.
func WithServeVersions(impl contract.Harness, versions ...int) ServeOption {
	return func(c *plugin.ServeConfig) {
		c.VersionedPlugins = map[int]plugin.PluginSet{}
		for _, v := range versions {
			c.VersionedPlugins[v] = plugin.PluginSet{PluginName: &GRPCPlugin{Impl: impl}}
		}
	}
}

// parentPollInterval is how often a plugin checks that its host is alive.
// The host also asks the kernel to kill plugins when it dies (Pdeathsig);
// this poll covers hosts that cannot (another OS, a host built elsewhere).
const parentPollInterval = 250 * time.Millisecond

// WatchParent exits the process when its parent process goes away, so a
// plugin never outlives its host. Serve calls it.
func WatchParent() {
	ppid := os.Getppid()
	go func() {
		for {
			time.Sleep(parentPollInterval)
			if os.Getppid() != ppid {
				os.Exit(0)
			}
		}
	}()
}
