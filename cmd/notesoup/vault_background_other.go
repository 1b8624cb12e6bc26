//go:build !linux && !darwin

package main

import "errors"

// startBackground is not available here: run notesoup vault sync from a
// timer instead.
func startBackground([]string) error {
	return errors.New("--background is supported on Linux and macOS only; run notesoup vault sync from a scheduled task")
}
