//go:build !linux

package filekey

import (
	"os"
	"time"
)

// File is an open file; elsewhere than Linux, an os.File (whose Stat_t
// layout and poller differ by system).
type File struct{ *os.File }

// Stat is what a key needs from a stat.
type Stat struct {
	Size  int64
	MTime time.Time
	CTime int64 // UnixNano; 0 where statSys cannot say
	Ino   uint64
}

// Key is the file's key without its tail hash.
func (st Stat) Key() Key {
	return Key{Size: st.Size, MTime: st.MTime.UnixNano(), CTime: st.CTime, Ino: st.Ino}
}

// Open opens path for reading and stats it.
func Open(path string) (File, Stat, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, Stat{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return File{}, Stat{}, err
	}
	st := Stat{Size: fi.Size(), MTime: fi.ModTime()}
	st.CTime, st.Ino = statSys(fi)
	return File{f}, st, nil
}

// Lstat is the key of the file at path without its tail hash, from a
// stat that follows no link (a link where a transcript was is not the
// transcript); ok is false for anything but a regular file.
func Lstat(path string) (Key, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Key{}, false
	}
	st := Stat{Size: fi.Size(), MTime: fi.ModTime()}
	st.CTime, st.Ino = statSys(fi)
	return st.Key(), true
}
