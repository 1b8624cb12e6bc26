// Package rawread is notesoup's one read of a small regular file: a note, a
// settings file, a state file. It reads at most a bound, refuses anything
// but a regular file (a FIFO planted under a name is refused without
// blocking on it), retries calls a signal interrupts, and returns the size
// and modification time from the same open file, so a caller never pairs
// the bytes of one file with the stat of another.
//
// On Linux and macOS it uses bare open, fstat, read and close (fast.go);
// the build tag purego, and every other platform, use os.File instead
// (portable.go). BENCHMARKS.md has the figure that keeps the fast path.
package rawread

import (
	"fmt"
	"time"
)

// Read reads the regular file at path: its first limit bytes, or all of it
// when limit <= 0 (for callers whose files are bounded by other means). It
// returns the file's full size and its modification time in UTC. A missing
// file is an error that errors.Is(err, fs.ErrNotExist) recognises.
func Read(path string, limit int) (data []byte, size int64, mtime time.Time, err error) {
	return read(path, limit)
}

// TooLargeError is ReadAll's refusal of a file over its bound.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, over the %d-byte limit", e.Path, e.Size, e.Max)
}

// ReadAll reads the whole regular file at path and refuses (TooLargeError)
// one over max bytes rather than returning part of it: a truncated settings
// or state file would be read as something else.
func ReadAll(path string, max int) ([]byte, error) {
	data, size, _, err := read(path, max+1)
	if err != nil {
		return nil, err
	}
	if size > int64(max) || len(data) > max {
		return nil, &TooLargeError{Path: path, Size: max64(size, int64(len(data))), Max: int64(max)}
	}
	return data, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
