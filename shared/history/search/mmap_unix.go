//go:build unix

package search

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only, so the raw scan reads
// the page cache in place instead of copying every byte into a buffer.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, syscall.EINVAL
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
