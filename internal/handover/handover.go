// Package handover lets the fast-starting notesoup binary give a command it
// cannot answer alone to the binary that links the plugin host and the MCP
// server. The light build (notesoup built with the "light" tag) leaves out
// gRPC, protobuf, go-plugin and the MCP SDK, whose package initialisation
// costs 20–30 ms of every start; a command that needs them (the MCP server,
// plugin mode, the plugin listing, or any command once an external harness
// plugin exists) runs in the full binary instead, with the same arguments
// and the same, unread, stdin. When to hand over is internal/oneshot's
// decision; this package only finds and starts the full binary.
package handover

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// HostBinary is the name of the full binary, installed beside the light
// notesoup by `make build` and the plugin packages. No user-facing text
// names it: to a user there is one command, notesoup.
const HostBinary = "notesoup-host"

// ErrNotFound is returned by Find when no candidate is installed.
var ErrNotFound = errors.New("not installed beside this binary or on PATH")

// Find returns the first of names that is an executable beside the running
// binary, else the first found on PATH.
func Find(names ...string) (string, error) {
	if self, err := os.Executable(); err == nil {
		for _, n := range names {
			p := filepath.Join(filepath.Dir(self), n)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 && !sameFile(p, self) {
				return p, nil
			}
		}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			if self, err := os.Executable(); err != nil || !sameFile(p, self) {
				return p, nil
			}
		}
	}
	return "", ErrNotFound
}

// sameFile keeps a binary from handing a command to itself.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// Exec replaces this process with path running args (args[0] excluded). It
// returns only on failure, with the system's reason alone: the caller words
// the message, since no user-facing text names the internal binary.
func Exec(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
