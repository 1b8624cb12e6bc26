//go:build unix

package dream

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// openFlags open a note for reading without following a link planted
// since the walk and without blocking on a FIFO.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// ownGroup starts cmd in a process group of its own and makes its
// cancellation (the pass's timeout, an interrupt) stop the whole group:
// the harness CLIs start helpers (the mod's notesoup, MCP servers, node
// workers) that would otherwise outlive the pass and keep writing notes.
// A group still running graceWait after SIGTERM gets SIGKILL.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil {
			return cmd.Process.Signal(os.Interrupt)
		}
		go func() {
			time.Sleep(graceWait)
			syscall.Kill(-pid, syscall.SIGKILL)
		}()
		return nil
	}
	cmd.WaitDelay = graceWait + 5*time.Second
}
