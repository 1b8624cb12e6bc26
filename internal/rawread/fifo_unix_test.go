//go:build unix

package rawread

import (
	"path/filepath"
	"syscall"
	"testing"
)

// fifo makes a FIFO, whose open would wait for a writer without
// O_NONBLOCK.
func fifo(t *testing.T, dir string) string {
	p := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
