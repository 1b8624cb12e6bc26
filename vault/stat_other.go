//go:build !linux && !darwin

package vault

import "os"

// oNoFollow is not available here; the regular-file check after opening
// still refuses anything else.
const oNoFollow = 0

// oNonBlock keeps an open of a FIFO from waiting for a writer.
const oNonBlock = 0

// inode is unknown here: size, modification time and the hashes decide.
func inode(os.FileInfo) uint64 { return 0 }
