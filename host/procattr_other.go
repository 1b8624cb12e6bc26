//go:build !linux

package host

import "syscall"

// pluginProcAttr has nothing to ask for where the kernel offers no parent
// death signal (Pdeathsig is Linux-only): there the plugin's own watch on its
// parent (pluginrpc.WatchParent) is what ends it when the host dies.
func pluginProcAttr() *syscall.SysProcAttr { return nil }
