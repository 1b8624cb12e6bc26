//go:build unix

package notes

import (
	"errors"
	"os"
	"syscall"
)

// flock blocks until it holds an exclusive flock on f. The lock belongs to
// the open file: closing f, or the death of the process, releases it.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
