//go:build linux || darwin

package notes

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// rawRead reads a file whole (or its first limit bytes when limit > 0) and
// returns its full size and modification time, using bare open, fstat, read
// and close. os.Open also registers the file with the runtime poller and
// os.ReadFile adds a stat; where syscalls are slow (virtual machines) that
// doubles the cost, and a boot block reads hundreds of notes.
func rawRead(path string, limit int) (data []byte, size int64, mtime time.Time, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, 0, time.Time{}, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, 0, time.Time{}, fmt.Errorf("%s is not a regular file", path)
	}
	n := int(st.Size)
	if limit > 0 && n > limit {
		n = limit
	}
	// Notes are replaced by rename, so the open file does not change under
	// us; a person editing in place can only make the read come up short.
	buf := make([]byte, n)
	got := 0
	for got < n {
		m, err := syscall.Read(fd, buf[got:n])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, 0, time.Time{}, err
		}
		if m == 0 {
			break
		}
		got += m
	}
	return buf[:got], st.Size, mtimeOf(&st).UTC(), nil
}
