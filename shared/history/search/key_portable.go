//go:build !linux

package search

import (
	"os"
	"time"
)

// rawFile is an open file; elsewhere than Linux, an os.File (whose
// Stat_t layout and poller differ by system).
type rawFile struct{ *os.File }

// fileStat is what the key needs from a stat.
type fileStat struct {
	size  int64
	mtime time.Time
	ctime int64 // UnixNano; 0 where statSys cannot say
	ino   uint64
}

// key is the file's key without its tail hash.
func (st fileStat) key() FileKey {
	return FileKey{Size: st.size, MTime: st.mtime.UnixNano(), CTime: st.ctime, Ino: st.ino}
}

// openFile opens path for reading and stats it.
func openFile(path string) (rawFile, fileStat, error) {
	f, err := os.Open(path)
	if err != nil {
		return rawFile{}, fileStat{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return rawFile{}, fileStat{}, err
	}
	st := fileStat{size: fi.Size(), mtime: fi.ModTime()}
	st.ctime, st.ino = statSys(fi)
	return rawFile{f}, st, nil
}

// lstatKey is the key of the file at path without its tail hash, from a
// stat that follows no link (a link where a transcript was is not the
// transcript); ok is false for anything but a regular file.
func lstatKey(path string) (FileKey, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return FileKey{}, false
	}
	st := fileStat{size: fi.Size(), mtime: fi.ModTime()}
	st.ctime, st.ino = statSys(fi)
	return st.key(), true
}
