//go:build unix

package host

import "syscall"

// killGroup SIGKILLs every process in the plugin's process group: the
// plugin and any children it left behind. pgid is the plugin's pid (it was
// started with Setpgid). Anything below 2 is refused: kill(-1) would signal
// every process the user owns, and kill(0) the host's own group.
//
// Calling it after the plugin was reaped is safe in practice: while any
// member of the group lives the kernel does not hand its id to a new
// process, and once none does the call fails with ESRCH (reuse would need
// the pid space to wrap around in between).
func killGroup(pgid int) {
	if pgid < 2 {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH: the group is already gone
}
