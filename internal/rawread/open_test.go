package rawread

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestOpen: a regular file opens; a link to one (inside the same folder or
// out of it), a dangling link, a folder and a FIFO are refused, the FIFO
// without waiting for a writer (the test would hang on it otherwise).
func TestOpen(t *testing.T) {
	link := func(target func(t *testing.T, dir string) string) func(t *testing.T, dir string) string {
		return func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "link")
			if err := os.Symlink(target(t, dir), p); err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	outside := func(t *testing.T, _ string) string { return file("secret")(t, t.TempDir()) }
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string) string
		refused  bool
		notExist bool
	}{
		{name: "regular file", setup: file("0123")},
		{name: "link to a file beside it", setup: link(file("0123")), refused: true},
		{name: "link to a file outside", setup: link(outside), refused: true},
		{name: "dangling link", setup: link(func(_ *testing.T, dir string) string { return filepath.Join(dir, "gone") }), refused: true},
		{name: "folder", setup: func(_ *testing.T, dir string) string { return dir }, refused: true},
		{name: "FIFO", setup: fifo, refused: true},
		{name: "missing", setup: func(_ *testing.T, dir string) string { return filepath.Join(dir, "absent") }, notExist: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tc.name != "regular file" && tc.name != "missing" {
				t.Skip("links and FIFOs are unix cases")
			}
			path := tc.setup(t, t.TempDir())
			f, fi, err := Open(path)
			switch {
			case tc.notExist:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err = %v, want not-exist", err)
				}
			case tc.refused:
				if !errors.Is(err, ErrNotRegular) {
					if f != nil {
						f.Close()
					}
					t.Fatalf("err = %v, want ErrNotRegular", err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				data, err := io.ReadAll(f)
				if err != nil || string(data) != "0123" || fi.Size() != 4 {
					t.Fatalf("read %q (%v), size %d", data, err, fi.Size())
				}
			}
		})
	}
}
