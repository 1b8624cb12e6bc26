//go:build unix

package reset

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f, blocking until it is
// free, and returns the function that releases it.
func lockFile(f *os.File) (func(), error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
