//go:build unix && !linux

package host

import "syscall"

// pluginProcAttr starts the plugin as the leader of its own process group,
// so the host can kill it together with its children (see killGroup).
// There is no parent death signal here (Pdeathsig is Linux-only): the
// plugin's own watch on its parent (pluginrpc.WatchParent) is what ends it
// when the host dies.
func pluginProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
