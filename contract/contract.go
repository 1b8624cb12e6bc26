// Package contract is the harness contract that the notesoup host and every
// harness plugin share: the contract version, the Go interface and its plain
// types. How it travels between processes (the go-plugin handshake, the
// versioned plugin sets, the gRPC shims) is contract/pluginrpc.
//
// The two are apart so that a one-shot process (the helper the Claude Code
// mod runs on every hook) can call the built-in harnesses in-process without
// linking gRPC and protobuf: their package initialisation alone cost about
// 8 ms of every start (see BENCHMARKS.md).
package contract

import "context"

// Version is the contract version this build of the host and the built-in
// plugins speak. Bump it when a change to Harness or harness.proto is not
// backwards compatible; go-plugin then refuses mismatched plugins at the
// handshake instead of letting them fail mid-call.
const Version = 1

// Capability names a harness may list in its Description.
const (
	CapSessions   = "sessions"   // ListSessions
	CapDecode     = "decode"     // Decode
	CapThresholds = "thresholds" // Thresholds
	CapBoot       = "boot"       // BootBinding

	// CapRawSearch promises that every letter and digit of the text the
	// decoder emits is in the file's own bytes, written literally or as a
	// \u00XX JSON escape, except inside Description.SynthesizedWords; so
	// a search may rule a file out from its bytes without decoding it.
	// Without it every file is decoded for every new query.
	CapRawSearch = "raw_search"
	// CapForks says a session file may inherit events from another
	// session's file (a Codex fork), so its own bytes do not hold all of
	// its text. A raw search then needs the harness's Inheritor; through a
	// plugin process, where there is none, such files are decoded.
	CapForks = "forks"
)

// Description is a harness plugin's fingerprint.
type Description struct {
	Name             string   `json:"name"`
	PluginVersion    string   `json:"plugin_version"`
	ContractVersions []int    `json:"contract_versions"`
	Capabilities     []string `json:"capabilities"`
	DefaultRoots     []string `json:"default_roots"`
	// SynthesizedWords are the words the decoder writes into event text or
	// tool names itself ("ran", "failed", ...), lower case: a query word
	// inside one of them may match text that is not in the file's bytes.
	SynthesizedWords []string `json:"synthesized_words,omitempty"`
	// SessionMetaKey is the key of an MCP tool call's _meta under which the
	// harness sends its session id (Codex: "threadId"), empty when none.
	SessionMetaKey string `json:"session_meta_key,omitempty"`
}

// DecodeRequest asks a harness to decode one session.
type DecodeRequest struct {
	Session Session
	// Head is the live head the harness reported; empty for offline selection.
	Head string
	// Roots bound where related files (a fork's parent) may be resolved.
	Roots []string
}

// SessionFilter says which sessions a ListSessions call wants.
type SessionFilter struct {
	// Roots are the session roots; empty means the plugin's default roots.
	Roots []string
	// IDPrefix, when set, asks only for sessions whose id starts with it.
	// Resolving one session (a selector, the caller's own session) then
	// describes the files named for it, not every file under the roots. A
	// plugin may list more (one that predates the field lists everything);
	// notesoup's service filters again.
	IDPrefix string
	// FilesOnly asks for each session's Harness, ID and Path alone, taken
	// from the file names: nothing is read from the files. A search wants
	// this, since it reads every file anyway. A plugin may ignore it and
	// describe every session.
	FilesOnly bool
}

// Inheritor is implemented by a harness with CapForks called in-process:
// it says which sessions a file inherits events from, from the file's first
// line (a fork names its parent there), so a raw search knows to decode it.
type Inheritor interface {
	// Inherits returns the ids of the sessions whose events the file whose
	// first line is given inherits; none when it holds all of its events.
	Inherits(firstLine []byte) []string
}

// Binding is what a boot block needs from a harness: the window id and the
// name under which that harness exposes the reset tool.
type Binding struct {
	WindowID  string `json:"window_id"`
	ResetTool string `json:"reset_tool"`
}

// Harness is what every harness plugin implements. The host calls it through
// the gRPC shims of contract/pluginrpc; built-in and external plugins look the
// same to the host.
type Harness interface {
	// Describe fingerprints the plugin.
	Describe(ctx context.Context) (Description, error)
	// ListSessions calls fn for each session the filter asks for.
	ListSessions(ctx context.Context, f SessionFilter, fn func(Session) error) error
	// Decode emits the session's events in seq order and returns the summary.
	Decode(ctx context.Context, req DecodeRequest, emit EmitFunc) (Summary, error)
	// Thresholds resolves the native auto-compaction point.
	Thresholds(ctx context.Context, in ThresholdInput) (NativePoint, error)
	// BootBinding names the window and reset tool for a session's window.
	BootBinding(ctx context.Context, sessionID string, ordinal int) (Binding, error)
}
