//go:build !unix

package search

import (
	"errors"
	"os"
)

// mapFile is unavailable here; the raw scan reads the file in chunks.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	return nil, nil, errors.New("no mmap on this platform")
}
