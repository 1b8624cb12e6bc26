//go:build !unix

package notes

import (
	"errors"
	"os"
)

// flock refuses on platforms without flock: writing notes unlocked could
// lose an update between two processes.
func flock(*os.File) error {
	return errors.New("file locking is not supported on this platform, so notes cannot be written safely")
}
