//go:build !unix

package search

import (
	"os"
	"time"
)

// pathKey computes a file's key through os.File.
func pathKey(path string, _ []byte) (FileKey, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileKey{}, time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return FileKey{}, time.Time{}, err
	}
	k, err := keyOf(f, fi)
	return k, fi.ModTime(), err
}
