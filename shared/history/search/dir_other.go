//go:build !linux

package search

// dirHandle opens files by their whole path where openat is not used.
type dirHandle struct{}

// openFile opens and stats path.
func (d *dirHandle) openFile(path string) (rawFile, fileStat, error) { return openFile(path) }

// close releases nothing.
func (d *dirHandle) close() {}
