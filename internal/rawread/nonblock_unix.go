//go:build unix

package rawread

import "syscall"

// openNonblock keeps the open of a FIFO from waiting for a writer; the
// fstat that follows refuses it. A regular file reads the same either way.
const openNonblock = syscall.O_NONBLOCK
