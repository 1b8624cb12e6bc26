//go:build !linux

package search

import (
	"os"
	"testing"
)

// ctimeOf is a file's change time, where statSys knows the stat's layout.
func ctimeOf(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ctime, _ := statSys(fi)
	if ctime == 0 {
		t.Skip("no change time on this system")
	}
	return ctime
}
