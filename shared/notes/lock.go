package notes

import (
	"path/filepath"

	"github.com/notesoup/notesoup/internal/filelock"
)

// lock takes the scope's exclusive lock (internal/filelock), creating the
// scope folder and lock file when needed. The kernel releases it when the
// holder exits or is killed, so a crashed writer never leaves a stale lock;
// a holder that hangs makes the write fail after filelock.Wait.
func (sc *scope) lock() (unlock func(), err error) {
	if err := mkdirAllSync(sc.dir); err != nil {
		return nil, ioErr("create notes folder "+sc.dir, err)
	}
	l, err := filelock.Acquire(filepath.Join(sc.dir, lockName), filePerm, filelock.Wait)
	if err != nil {
		return nil, ioErr("lock "+sc.dir, err)
	}
	return func() { l.Release() }, nil
}
