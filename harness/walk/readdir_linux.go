package walk

import (
	"fmt"
	"os"
	"slices"
	"syscall"
	"unsafe"
)

// readDir lists dir's entries, sorted by name, with their types as the
// directory records them (lstat only where it does not), each with its
// path: prefix (dir and a separator) and the name. It reads the directory
// in 32 KiB getdents calls and makes one string per entry, the path, of
// which the name is the end: the walk lists thousands of sessions on
// every search, and every fresh page of memory costs a fault.
func readDir(dir, prefix string) ([]dirEntry, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	var out []dirEntry
	buf := make([]byte, 32<<10)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		for b := buf[:n]; len(b) > 0; {
			// struct linux_dirent64: ino, off (8 each), reclen (2),
			// type (1), name (NUL-terminated).
			if len(b) < 19 {
				return nil, fmt.Errorf("readdirent %s: a short record", dir)
			}
			reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
			if reclen < 19 || reclen > len(b) {
				return nil, fmt.Errorf("readdirent %s: a record of %d bytes", dir, reclen)
			}
			typ, name := b[18], b[19:reclen]
			b = b[reclen:]
			if i := indexZero(name); i >= 0 {
				name = name[:i]
			}
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirEntry{path: prefix + string(name)}
			e.name = e.path[len(prefix):]
			switch typ {
			case syscall.DT_DIR:
				e.kind = kindDir
			case syscall.DT_REG:
				e.kind = kindFile
			case syscall.DT_UNKNOWN:
				if fi, err := os.Lstat(e.path); err == nil {
					e.kind = kindOf(fi.Mode())
				}
			}
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b dirEntry) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return out, nil
}

func indexZero(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}
