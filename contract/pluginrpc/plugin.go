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

	"github.com/hashicorp/go-hclog"
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
	return versionedSets(impl, contract.Version)
}

// versionedSets serves impl under each of versions.
func versionedSets(impl contract.Harness, versions ...int) map[int]plugin.PluginSet {
	sets := make(map[int]plugin.PluginSet, len(versions))
	for _, v := range versions {
		sets[v] = plugin.PluginSet{PluginName: &GRPCPlugin{Impl: impl}}
	}
	return sets
}

// Serve runs impl as a go-plugin server on stdin/stdout. It returns when the
// host closes the connection or dies. A plugin's main is usually this one
// call: pluginrpc.Serve(myHarness{}).
func Serve(impl contract.Harness, opts ...ServeOption) {
	o := serveOptions{versions: []int{contract.Version}}
	for _, opt := range opts {
		opt(&o)
	}
	WatchParent()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: versionedSets(impl, o.versions...),
		GRPCServer:       plugin.DefaultGRPCServer,
		Logger:           o.logger, // nil: go-plugin's default, JSON lines on stderr
	})
}

// ServeOption adjusts how Serve runs a plugin. Its settings are this
// package's own, not go-plugin's ServeConfig, so a plugin depends on the
// contract alone and the transport may change under it.
type ServeOption func(*serveOptions)

// serveOptions is what the ServeOptions set.
type serveOptions struct {
	versions []int        // contract versions served; contract.Version by default
	logger   hclog.Logger // nil: go-plugin's default
}

// WithServeVersions serves the plugin under the given contract versions
// instead of contract.Version. Tests use it to build a plugin that speaks
// another version.
func WithServeVersions(versions ...int) ServeOption {
	return func(o *serveOptions) { o.versions = versions }
}

// WithServeLogger sets the logger the plugin server uses; its output goes to
// stderr, which the host forwards into its own log.
func WithServeLogger(l hclog.Logger) ServeOption {
	return func(o *serveOptions) { o.logger = l }
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
