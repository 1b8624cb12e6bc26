// Command notesoup-harness-opencode is notesoup's harness plugin for
// OpenCode (opencode.ai), shipped as an external plugin: its own module,
// built against the contract alone (contract, contract/pluginrpc), loaded
// by the host from $NOTESOUP_PLUGIN_DIR (or ~/.notesoup/plugins) exactly as
// a third party's plugin would be.
//
// OpenCode keeps every session in one SQLite database,
// $XDG_DATA_HOME/opencode/opencode.db (default ~/.local/share/opencode;
// OPENCODE_DB overrides; other release channels use opencode-<channel>.db),
// in WAL mode: tables session, message and part, the last two holding JSON.
// The plugin reads it read-only, with a pure-Go SQLite (modernc.org/sqlite:
// no cgo), and never creates the database or its -wal and -shm files (see
// store.go). Its SQLite stays in this module, out of notesoup's own builds.
//
// Started with install or uninstall instead of the host's handshake, it
// wires notesoup into OpenCode's configuration and takes it out again
// (install.go): `notesoup install opencode` runs it so. Beyond the
// contract it links only shared/jsonedit, a standard-library-only editor
// of JSON with comments.
package main

import (
	"fmt"
	"os"

	"github.com/notesoup/notesoup/contract/pluginrpc"
)

func main() {
	// The host starts a plugin without arguments and speaks go-plugin's
	// handshake on its stdout; a person running it by hand gets a hint.
	if len(os.Args) > 1 && (os.Args[1] == "install" || os.Args[1] == "uninstall") {
		// `notesoup install|uninstall opencode` runs this (cmd/notesoup
		// falls back to an external plugin's own installer).
		os.Exit(runInstaller(os.Args[1], os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s is a notesoup harness plugin: install it in $NOTESOUP_PLUGIN_DIR or ~/.notesoup/plugins and run `notesoup plugins`\n", os.Args[0])
		os.Exit(2)
	}
	pluginrpc.Serve(Harness{})
}
