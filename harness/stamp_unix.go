//go:build linux || darwin

package harness

import (
	"os"
	"syscall"
)

// stampOf stats path. ok is false when it cannot: the file is then
// described every time.
func stampOf(path string) (fileStamp, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), CTime: ctime(st), Inode: uint64(st.Ino)}, true
}
