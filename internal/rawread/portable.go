package rawread

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// readPortable is Read through os.File: what the purego build and
// platforms without the fast path use, and the twin the fast path is
// tested and measured against.
func readPortable(path string, limit int) (data []byte, size int64, mtime time.Time, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, time.Time{}, fmt.Errorf("%s is not a regular file", path)
	}
	n := fi.Size()
	if limit > 0 && n > int64(limit) {
		n = int64(limit)
	}
	buf := make([]byte, n)
	got, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, 0, time.Time{}, err
	}
	return buf[:got], fi.Size(), fi.ModTime().UTC(), nil
}
