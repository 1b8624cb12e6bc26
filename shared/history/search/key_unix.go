//go:build unix

package search

import (
	"syscall"
	"time"
)

// pathKey computes a file's key with raw system calls (open, fstat,
// pread, close): the warm path does this for every file, and os.File's
// bookkeeping would cost more than the calls themselves.
func pathKey(path string, buf []byte) (FileKey, time.Time, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return FileKey{}, time.Time{}, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return FileKey{}, time.Time{}, err
	}
	mtime := time.Unix(st.Mtim.Unix())
	k := FileKey{Size: st.Size, MTime: mtime.UnixNano()}
	n := min(int64(len(buf)), k.Size)
	got := 0
	for int64(got) < n {
		m, err := syscall.Pread(fd, buf[got:n], k.Size-n+int64(got))
		if err != nil {
			return FileKey{}, time.Time{}, err
		}
		if m == 0 {
			break // truncated under us: hash what is there; the next look differs
		}
		got += m
	}
	k.Tail = tailHash(buf[:got])
	return k, mtime, nil
}
