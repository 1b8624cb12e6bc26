//go:build !unix

package dream

import (
	"os/exec"
	"time"
)

// openFlags: no O_NOFOLLOW here; the walk's own type check stands.
const openFlags = 0

// ownGroup only bounds the wait after cancellation: without process
// groups, the harness's own children may outlive it.
func ownGroup(cmd *exec.Cmd) { cmd.WaitDelay = graceWait + 5*time.Second }
