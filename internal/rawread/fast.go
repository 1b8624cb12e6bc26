//go:build (linux || darwin) && !purego

package rawread

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"
)

// read is readFast on Linux and macOS.
func read(path string, limit int) ([]byte, int64, time.Time, error) { return readFast(path, limit) }

// readFast is Read with bare open, fstat, read and close. os.Open also
// registers the file with the runtime poller and os.ReadFile adds a stat;
// where system calls are slow (virtual machines) that doubles the cost, and
// a boot block reads hundreds of notes.
func readFast(path string, limit int) (data []byte, size int64, mtime time.Time, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, 0, time.Time{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, 0, time.Time{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, 0, time.Time{}, fmt.Errorf("%s is not a regular file", path)
	}
	n := int(st.Size)
	if limit > 0 && n > limit {
		n = limit
	}
	// A file replaced by rename does not change under the open descriptor;
	// one edited in place can only make the read come up short.
	buf := make([]byte, n)
	got := 0
	for got < n {
		m, err := syscall.Read(fd, buf[got:n])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, 0, time.Time{}, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		got += m
	}
	return buf[:got], st.Size, mtimeOf(&st).UTC(), nil
}
