package harness

import "syscall"

// ctime is the file's change time: Stat_t names it Ctimespec on darwin.
func ctime(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
