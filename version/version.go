// Package version is the notesoup release version, reported by the CLI, the
// helper protocol, the MCP server and the built-in harness plugins.
package version

// Version is the notesoup version. Release builds may override it with
// -ldflags "-X github.com/notesoup/notesoup/version.Version=...".
var Version = "0.1.0-dev"
