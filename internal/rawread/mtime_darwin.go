//go:build !purego

package rawread

import (
	"syscall"
	"time"
)

// mtimeOf reads the modification time of a stat; Darwin names the field
// Mtimespec.
func mtimeOf(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtimespec.Unix()) }
