//go:build linux

package host

import "syscall"

// pluginProcAttr asks the kernel to kill the plugin when the host dies, even
// by SIGKILL, so no plugin outlives its host. (The plugin also watches its
// parent; see pluginrpc.WatchParent.)
func pluginProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
