package filekey

import (
	"path/filepath"
	"syscall"
)

// Dir keeps the directory of the file opened or stat'ed last open, so that
// the next file in it is opened or stat'ed relative to it (openat,
// fstatat): the kernel then resolves one path component instead of every
// component of the path, which is a good part of an open or a stat on the
// warm path. Callers take files in listing order, so consecutive ones
// mostly share a directory. The zero Dir is ready to use; one Dir is for
// one goroutine at a time.
type Dir struct {
	path string // with its trailing separator, as filepath.Split gives it
	fd   int
	open bool
}

// Open opens and stats path, relative to its directory's handle.
func (d *Dir) Open(path string) (File, Stat, error) {
	dirfd, base, ok := d.at(path)
	if !ok {
		return Open(path) // the error, if any, as for the file
	}
	return OpenAt(dirfd, base)
}

// Lstat is Lstat of path, relative to its directory's handle.
func (d *Dir) Lstat(path string) (Key, bool) {
	dirfd, base, ok := d.at(path)
	if !ok {
		return Lstat(path)
	}
	return LstatAt(int32(dirfd), base)
}

// at is the handle of path's directory, opened if it is not the last
// one, and path's name in it; ok is false when path has no directory or
// it cannot be opened.
func (d *Dir) at(path string) (dirfd int, base string, ok bool) {
	dir, base := filepath.Split(path)
	if dir == "" || base == "" {
		return 0, "", false
	}
	if !d.open || d.path != dir {
		d.Close()
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return 0, "", false
		}
		d.path, d.fd, d.open = dir, fd, true
	}
	return d.fd, base, true
}

// Close releases the handle.
func (d *Dir) Close() {
	if d.open {
		syscall.Close(d.fd)
		d.open = false
	}
}
