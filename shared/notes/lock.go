package notes

import (
	"os"
	"path/filepath"
)

// lock takes the scope's exclusive lock, creating the scope folder and
// lock file when needed. The lock is an flock on an open file, so the kernel
// releases it when the holder exits or is killed: a crashed writer never
// leaves a stale lock behind.
func (sc *scope) lock() (unlock func(), err error) {
	if err := mkdirAllSync(sc.dir); err != nil {
		return nil, ioErr("create notes folder "+sc.dir, err)
	}
	f, err := os.OpenFile(filepath.Join(sc.dir, lockName), os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return nil, ioErr("open lock "+sc.dir, err)
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, ioErr("lock "+sc.dir, err)
	}
	return func() {
		// Closing the descriptor drops the flock.
		f.Close()
	}, nil
}
