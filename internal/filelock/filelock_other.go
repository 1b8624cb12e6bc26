//go:build !unix

package filelock

import "os"

// open refuses: this platform has no flock (ErrUnsupported).
func open(string, os.FileMode) (*os.File, error) { return nil, ErrUnsupported }

// tryLock is never reached: open refuses first.
func tryLock(*os.File) (bool, error) { return false, ErrUnsupported }

// lock is never reached: open refuses first.
func lock(*os.File) error { return ErrUnsupported }
