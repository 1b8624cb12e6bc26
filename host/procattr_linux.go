//go:build linux

package host

import "syscall"

// pluginProcAttr starts the plugin as the leader of its own process group,
// so the host can kill the plugin together with every child it started (a
// child left holding the plugin's stdout or stderr would otherwise keep
// go-plugin waiting for EOF forever; see killGroup). It also asks the
// kernel to kill the plugin when the host dies, even by SIGKILL, so no
// plugin outlives its host. (The plugin also watches its parent; see
// pluginrpc.WatchParent.)
func pluginProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
