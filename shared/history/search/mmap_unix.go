//go:build unix

package search

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the regular file at path read-only, refusing it unless its
// size is want (the manifest's record: a truncated or replaced segment is
// caught here). The pages are the page cache's: a search touches only the
// blocks and posting lists it reads, whatever the index's size.
func mapFile(path string, want int64) ([]byte, func(), error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != want || want <= 0 || want > 1<<40 {
		return nil, nil, fmt.Errorf("%s: %w (size %d, want %d)", path, errSegment, fi.Size(), want)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(want), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	return data, func() { syscall.Munmap(data) }, nil
}
