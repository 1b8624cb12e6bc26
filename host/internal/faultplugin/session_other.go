//go:build !unix

package main

import "syscall"

// newSession has no sessions to leave here; the child stays where it is.
func newSession() *syscall.SysProcAttr { return nil }
