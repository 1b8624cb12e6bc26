// Package handover lets a fast-starting notesoup binary give a command it
// cannot answer alone to the binary that links the plugin host and the MCP
// server. The light binaries (notesoup built with the "light" tag, and
// notesoup-helper) leave out gRPC, protobuf, go-plugin and the MCP SDK,
// whose package initialisation costs 20–30 ms of every start; a command
// that needs them (the MCP server, plugin mode, the plugin listing, or any
// command once an external harness plugin overrides a built-in) runs in
// the full binary instead, with the same arguments and the same, unread,
// stdin.
package handover

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// HostBinary is the name of the full binary, installed beside the light
// notesoup by `make build` and the plugin packages.
const HostBinary = "notesoup-host"

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
	return "", fmt.Errorf("none of %s is installed beside %s or on PATH; install %s (make build puts it in bin/)", strings.Join(names, ", "), filepath.Base(os.Args[0]), names[0])
}

// sameFile keeps a binary from handing a command to itself.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// Exec replaces this process with path running args (args[0] excluded). It
// returns only on failure.
func Exec(path string, args []string) error {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return errors.Join(fmt.Errorf("running %s", path), err)
}
