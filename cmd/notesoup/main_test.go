//go:build !light

package main

import (
	"os"
	"testing"

	"github.com/notesoup/notesoup/host"
)

// TestMain lets the test binary serve built-in harness plugins: commands run
// in-process start the host, which re-executes this binary in plugin mode.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == host.PluginModeArg {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
