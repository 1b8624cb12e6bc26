//go:build !(linux || darwin)

package notes

import (
	"errors"
	"io"
	"os"
	"time"
)

// rawRead reads a file whole (or its first limit bytes when limit > 0) and
// returns its full size and modification time. This portable version goes
// through os.File; Linux and macOS use bare syscalls (rawread_fast.go).
func rawRead(path string, limit int) (data []byte, size int64, mtime time.Time, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, time.Time{}, errors.New(path + " is not a regular file")
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
