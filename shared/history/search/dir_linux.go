package search

import (
	"path/filepath"
	"syscall"

	"github.com/notesoup/notesoup/shared/filekey"
)

// dirHandle keeps the directory of the file opened last open, so that the
// next file in it is opened relative to it (openat): the kernel then
// resolves one path component instead of every component of the path,
// which is a good part of an open on the warm path. Files come in listing
// order, so consecutive ones mostly share a directory.
type dirHandle struct {
	path string // with its trailing separator, as filepath.Split gives it
	fd   int
	open bool
}

// openFile opens and stats path, relative to its directory's handle.
func (d *dirHandle) openFile(path string) (filekey.File, filekey.Stat, error) {
	dir, base := filepath.Split(path)
	if dir == "" || base == "" {
		return filekey.Open(path)
	}
	if !d.open || d.path != dir {
		d.close()
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return filekey.Open(path) // the error, if any, as for the file
		}
		d.path, d.fd, d.open = dir, fd, true
	}
	return filekey.OpenAt(d.fd, base)
}

// close releases the handle.
func (d *dirHandle) close() {
	if d.open {
		syscall.Close(d.fd)
		d.open = false
	}
}
