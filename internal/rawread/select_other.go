//go:build !(linux || darwin) || purego

package rawread

import "time"

// read is readPortable where the fast path is not built.
func read(path string, limit int) ([]byte, int64, time.Time, error) { return readPortable(path, limit) }
