//go:build !purego

package rawread

import (
	"syscall"
	"time"
)

// mtimeOf reads the modification time of a stat. Timespec.Unix widens the
// fields, which are int32 on 32-bit Linux (GOARCH=386, arm) and int64 elsewhere.
func mtimeOf(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtim.Unix()) }
