// Command notesoup-harness-jsonl is a worked example of an external
// notesoup harness plugin: a minimal harness named "jsonl" whose sessions
// are files $JSONL_HARNESS_HOME/sessions/<id>.jsonl (default
// ~/.jsonl-harness), one JSON object a line:
//
//	{"role":"user","text":"add a --json flag","ts":"2026-01-02T15:04:05Z"}
//	{"role":"assistant","text":"Done: list --json prints one object a line.","ts":"2026-01-02T15:04:09Z"}
//
// It imports only the contract (github.com/notesoup/notesoup/contract) and
// its transport (contract/pluginrpc), as any plugin written outside the
// repository would. Installed as an executable named
// notesoup-harness-jsonl in $NOTESOUP_PLUGIN_DIR (or ~/.notesoup/plugins),
// its sessions show up in `notesoup history sessions`, `notesoup search`
// and the MCP server's history tools. docs/adding-a-harness.md walks
// through it.
package main

import (
	"fmt"
	"os"

	"github.com/notesoup/notesoup/contract/pluginrpc"
)

func main() {
	// The host starts a plugin without arguments and speaks go-plugin's
	// handshake on its stdout; a person running it by hand with an argument
	// ("--help") gets a hint instead of a handshake line.
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s is a notesoup harness plugin: install it in $NOTESOUP_PLUGIN_DIR or ~/.notesoup/plugins and run `notesoup plugins`\n", os.Args[0])
		os.Exit(2)
	}
	pluginrpc.Serve(Harness{})
}
