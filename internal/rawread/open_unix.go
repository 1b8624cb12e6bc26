//go:build unix

package rawread

import (
	"errors"
	"syscall"
)

// openNoFollow makes Open refuse a symbolic link as its path's last
// component (ELOOP) instead of opening what it points at.
const openNoFollow = syscall.O_NOFOLLOW

// isLinkRefusal reports whether an open failed because of openNoFollow.
func isLinkRefusal(err error) bool { return errors.Is(err, syscall.ELOOP) }
