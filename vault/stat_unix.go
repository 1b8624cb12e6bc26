//go:build linux || darwin

package vault

import (
	"os"
	"syscall"
)

// oNoFollow refuses to open a symbolic link: the vault opens only regular
// files it means to.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock keeps an open of a FIFO from waiting for a writer.
const oNonBlock = syscall.O_NONBLOCK

// inode returns the file's inode number, 0 when the system does not say.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
