//go:build !linux

package filekey

// Dir opens and stats files by their whole path where openat is not used.
type Dir struct{}

// Open opens and stats path.
func (d *Dir) Open(path string) (File, Stat, error) { return Open(path) }

// Lstat is Lstat of path.
func (d *Dir) Lstat(path string) (Key, bool) { return Lstat(path) }

// Close releases nothing.
func (d *Dir) Close() {}
