//go:build linux

package search

import (
	"os"
	"syscall"
	"testing"
)

// ctimeOf is a file's change time.
func ctimeOf(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no change time on this system")
	}
	return st.Ctim.Nano()
}
