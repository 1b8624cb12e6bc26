//go:build linux || darwin

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// backgroundExe is the notesoup binary startBackground runs; tests replace
// it (the test binary must not run itself).
var backgroundExe = os.Executable

// startBackground runs this notesoup again with args in its own session,
// with no stdin, stdout or stderr, and does not wait for it: the caller (a
// harness's session-start hook, whose engine waits for a child's output
// and ends it with the hook) returns at once while the copy goes on.
func startBackground(args []string) error {
	exe, err := backgroundExe()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
