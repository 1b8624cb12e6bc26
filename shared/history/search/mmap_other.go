//go:build !unix

package search

import (
	"fmt"
	"io"
	"os"
)

// mapFile reads the regular file at path, refusing it unless its size is
// want (where mapping is not available).
func mapFile(path string, want int64) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != want || want <= 0 {
		return nil, nil, fmt.Errorf("%s: %w (size %d, want %d)", path, errSegment, fi.Size(), want)
	}
	data := make([]byte, want)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}
