//go:build !unix

package reset

import (
	"errors"
	"os"
)

// lockFile refuses on platforms without flock: writing the reset state
// unlocked could lose an update between two processes.
func lockFile(*os.File) (func(), error) {
	return nil, errors.New("file locking is not supported on this platform")
}
