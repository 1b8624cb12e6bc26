//go:build !linux

package search

import "github.com/notesoup/notesoup/shared/filekey"

// dirHandle opens files by their whole path where openat is not used.
type dirHandle struct{}

// openFile opens and stats path.
func (d *dirHandle) openFile(path string) (filekey.File, filekey.Stat, error) {
	return filekey.Open(path)
}

// close releases nothing.
func (d *dirHandle) close() {}
