//go:build !unix

package host

import "syscall"

// pluginProcAttr asks for nothing where there are no process groups to
// kill (not unix): the plugin's own watch on its parent
// (pluginrpc.WatchParent) ends it when the host dies.
func pluginProcAttr() *syscall.SysProcAttr { return nil }

// killGroup has no process group to kill here; go-plugin kills the plugin
// itself and the host's bounded wait (see Host.stopPlugin) keeps a child
// holding its pipes from hanging the host.
func killGroup(int) {}
