//go:build !unix

package rawread

// openNonblock is 0 where opening a special file cannot block this way.
const openNonblock = 0
