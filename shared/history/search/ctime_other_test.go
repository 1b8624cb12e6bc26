//go:build !linux

package search

import (
	"testing"

	"github.com/notesoup/notesoup/shared/filekey"
)

// ctimeOf is a file's change time, where package filekey knows the stat's
// layout.
func ctimeOf(t *testing.T, path string) int64 {
	t.Helper()
	k, ok := filekey.Lstat(path)
	if !ok {
		t.Fatalf("%s: not a regular file", path)
	}
	ctime := k.CTime
	if ctime == 0 {
		t.Skip("no change time on this system")
	}
	return ctime
}
