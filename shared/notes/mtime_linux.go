//go:build linux

package notes

import (
	"syscall"
	"time"
)

func mtimeOf(st *syscall.Stat_t) time.Time { return time.Unix(st.Mtim.Sec, st.Mtim.Nsec) }
