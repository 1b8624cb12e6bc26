//go:build unix

package notes

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestSpecialFileRefused: a FIFO (or socket, device) named like a note is
// refused rather than opened, which could block forever.
func TestSpecialFileRefused(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "real.md", "x\n")
	if err := syscall.Mkfifo(filepath.Join(sp.ProjectDir(), "pipe.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sp.Read(ReadRequest{Name: "pipe.md"})
	wantCode(t, err, CodeInvalidName, "not a regular file")
	_, err = sp.Write(WriteRequest{Name: "pipe.md", Content: "y"})
	wantCode(t, err, CodeInvalidName, "not a regular file")
	// Listing skips it instead of blocking on it.
	r, err := sp.List(ListRequest{})
	if err != nil || len(r.Notes) != 1 || r.Notes[0].Name != "real.md" {
		t.Errorf("list = %+v, %v", r.Notes, err)
	}
}
