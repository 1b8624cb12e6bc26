//go:build linux

package filekey

import (
	"fmt"
	"io"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// File is an open file read with raw system calls (open, fstat, pread,
// close): the search does this for every file, warm or cold, and os.File's
// bookkeeping (poller registration, fcntl calls) would cost more system
// calls than the reads themselves.
type File struct{ fd int }

// Stat is what a key needs from a stat.
type Stat struct {
	Size  int64
	MTime time.Time
	CTime int64 // UnixNano
	Ino   uint64
}

// Key is the file's key without its tail hash.
func (st Stat) Key() Key {
	return Key{Size: st.Size, MTime: st.MTime.UnixNano(), CTime: st.CTime, Ino: st.Ino}
}

// OfStat is the key of a stat without its tail hash.
func OfStat(st *syscall.Stat_t) Key {
	return Key{Size: st.Size, MTime: time.Unix(st.Mtim.Unix()).UnixNano(), CTime: st.Ctim.Nano(), Ino: st.Ino}
}

// Open opens path for reading and stats it.
func Open(path string) (File, Stat, error) { return OpenAt(unix.AT_FDCWD, path) }

// OpenAt opens path relative to the directory dirfd for reading and stats
// it. O_NONBLOCK: a path a walk listed as a regular file may have become a
// FIFO since, whose open would wait for a writer; a regular file reads the
// same either way.
func OpenAt(dirfd int, path string) (File, Stat, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Openat(dirfd, path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return File{-1}, Stat{}, fmt.Errorf("open: %w", err)
	}
	return statFD(fd)
}

// statFD stats the open descriptor fd; on failure it closes it.
func statFD(fd int) (File, Stat, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return File{-1}, Stat{}, fmt.Errorf("stat: %w", err)
	}
	return File{fd}, Stat{Size: st.Size, MTime: time.Unix(st.Mtim.Unix()), CTime: st.Ctim.Nano(), Ino: st.Ino}, nil
}

// ReadAt reads len(b) bytes at off, or fewer with io.EOF at the end.
//
// The read is a raw system call: it does not tell the scheduler it is in
// the kernel. A 256 KiB read from the page cache takes longer than the
// 20 µs after which the runtime hands a blocked worker's processor to
// another thread, and a cold search made some ten thousand such handoffs
// (thread wakeups, futex calls, context switches) for reads that were
// about to return; the workers are the only goroutines with work, so
// keeping the processor through a read costs nothing. A read that waits
// for the disk holds it longer, which delays only a collection.
func (f File) ReadAt(b []byte, off int64) (int, error) {
	got := 0
	for got < len(b) {
		p := b[got:]
		r, _, errno := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(f.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), uintptr(off+int64(got)), 0, 0)
		n := int(r)
		var err error
		if errno != 0 {
			err = errno
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return got, err
		}
		if n == 0 {
			return got, io.EOF
		}
		got += n
	}
	return got, nil
}

// Close closes the file.
func (f File) Close() error { return syscall.Close(f.fd) }

// Lstat is the key of the file at path without its tail hash, from a
// stat that follows no link (a link where a transcript was is not the
// transcript); ok is false for anything but a regular file.
func Lstat(path string) (Key, bool) { return LstatAt(unix.AT_FDCWD, path) }

// LstatAt is Lstat of path relative to the directory dirfd.
func LstatAt(dirfd int32, path string) (k Key, ok bool) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(dirfd), path, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Key{}, false
		}
		break
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return Key{}, false
	}
	return Key{Size: st.Size, MTime: time.Unix(st.Mtim.Unix()).UnixNano(), CTime: st.Ctim.Nano(), Ino: st.Ino}, true
}
