// Package contract is the harness contract that the notesoup host and every
// harness plugin share: the Go interface, the go-plugin handshake, the
// versioned plugin sets and the gRPC client and server shims. It is kept
// small on purpose (in the style of go-plugin's examples/grpc) so that an
// external harness needs only this package and the generated harnesspb.
package contract

import (
	"context"
	"os"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/reset"
)

// Version is the contract version this build of the host and the built-in
// plugins speak. Bump it when a change to Harness or harness.proto is not
// backwards compatible; go-plugin then refuses mismatched plugins at the
// handshake instead of letting them fail mid-call.
const Version = 1

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

// Capability names a harness may list in its Description.
const (
	CapSessions   = "sessions"   // ListSessions
	CapDecode     = "decode"     // Decode
	CapThresholds = "thresholds" // Thresholds
	CapBoot       = "boot"       // BootBinding
)

// Description is a harness plugin's fingerprint.
type Description struct {
	Name             string   `json:"name"`
	PluginVersion    string   `json:"plugin_version"`
	ContractVersions []int    `json:"contract_versions"`
	Capabilities     []string `json:"capabilities"`
	DefaultRoots     []string `json:"default_roots"`
}

// DecodeRequest asks a harness to decode one session.
type DecodeRequest struct {
	Session history.Session
	// Head is the live head the harness reported; empty for offline selection.
	Head string
	// Roots bound where related files (a fork's parent) may be resolved.
	Roots []string
}

// Binding is what a boot block needs from a harness: the window id and the
// name under which that harness exposes the reset tool.
type Binding struct {
	WindowID  string `json:"window_id"`
	ResetTool string `json:"reset_tool"`
}

// Harness is what every harness plugin implements. The host calls it through
// the gRPC shims; built-in and external plugins look the same to the host.
type Harness interface {
	// Describe fingerprints the plugin.
	Describe(ctx context.Context) (Description, error)
	// ListSessions calls fn for each session under roots (the plugin's
	// default roots when roots is empty).
	ListSessions(ctx context.Context, roots []string, fn func(history.Session) error) error
	// Decode emits the session's events in seq order and returns the summary.
	Decode(ctx context.Context, req DecodeRequest, emit history.EmitFunc) (history.Summary, error)
	// Thresholds resolves the native auto-compaction point.
	Thresholds(ctx context.Context, in reset.ThresholdInput) (reset.NativePoint, error)
	// BootBinding names the window and reset tool for a session's window.
	BootBinding(ctx context.Context, sessionID string, ordinal int) (Binding, error)
}

// PluginSets returns the versioned plugin sets for impl, as both the host
// (with a nil impl) and plugins (with their implementation) pass them to
// go-plugin.
func PluginSets(impl Harness) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		Version: {PluginName: &GRPCPlugin{Impl: impl}},
	}
}

// Serve runs impl as a go-plugin server on stdin/stdout. It returns when the
// host closes the connection or dies.
func Serve(impl Harness, opts ...ServeOption) {
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
// Version. Tests use it to build a plugin that speaks another version.
func WithServeVersions(impl Harness, versions ...int) ServeOption {
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
