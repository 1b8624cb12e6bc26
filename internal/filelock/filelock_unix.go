//go:build unix

package filelock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// open opens the lock file for locking. O_NOFOLLOW refuses a symbolic link
// and O_NONBLOCK keeps a FIFO planted at the path from blocking the open;
// fstat then refuses anything but a regular file.
func open(path string, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("lock %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	return f, nil
}

// tryLock takes the exclusive flock without blocking: held is false when
// another open file holds it. A signal that interrupts the call is not a
// failure; it is retried.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		default:
			return false, err
		}
	}
}

// lock takes the exclusive flock, blocking until it is free. The kernel
// wakes a blocked waiter the moment the lock is dropped, where a poller
// sleeps through it and loses the race to newcomers, so under many
// writers a poller could wait out its whole bound while the lock changed
// hands hundreds of times. A signal that interrupts the call is retried.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
