//go:build darwin

package notes

import (
	"syscall"
	"time"
)

func mtimeOf(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtimespec.Sec, st.Mtimespec.Nsec) }
