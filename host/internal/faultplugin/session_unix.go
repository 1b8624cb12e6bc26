//go:build unix

package main

import "syscall"

// newSession starts a child in a session (and so a process group) of its
// own, out of reach of a kill aimed at the plugin's group.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
