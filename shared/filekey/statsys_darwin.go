//go:build darwin

package filekey

import (
	"io/fs"
	"syscall"
)

// statSys returns a file's change time (UnixNano) and inode from its stat.
func statSys(fi fs.FileInfo) (int64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano(), st.Ino
	}
	return 0, 0
}
