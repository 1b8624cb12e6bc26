package dream

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/internal/filelock"
)

// The lock files, in each scope folder beside the notes. Their names start
// with a dot, so the notes store and the snapshots leave them out.
const (
	// dreamLockName is held for a whole pass and for an undo: one dream
	// at a time on the same notes.
	dreamLockName = ".dream.lock"
	// notesLockName is the notes store's own per-scope write lock
	// (shared/notes, lock.go), which every note write takes; holding it
	// while a snapshot is read or restored keeps a concurrent write from
	// landing in the middle.
	notesLockName = ".lock"
	// lockPerm keeps the lock files private like the notes.
	lockPerm = 0o600
	dirPerm  = 0o700
)

// ErrBusy is wrapped by the error of a pass or an undo refused because
// another dream holds the notes.
var ErrBusy = errors.New("another dream pass is running on these notes")

// lockDreams takes the dream lock of every scope folder, in order, without
// waiting: a second pass is refused at once, naming the holder, rather than
// queued behind one that may run for half an hour.
func lockDreams(dirs []string) (release func(), err error) {
	var held []*filelock.Lock
	release = func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Release()
		}
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, dirPerm); err != nil {
			release()
			return nil, fmt.Errorf("create notes folder %s: %w", dir, err)
		}
		path := filepath.Join(dir, dreamLockName)
		l, err := filelock.Acquire(path, lockPerm, 0)
		var te *filelock.TimeoutError
		if errors.As(err, &te) {
			release()
			holder := "another process"
			if te.PID > 0 {
				holder = fmt.Sprintf("pid %d", te.PID)
			}
			return nil, fmt.Errorf("%w (%s holds %s); wait for it to finish, or stop it, then try again", ErrBusy, holder, path)
		}
		if err != nil {
			release()
			return nil, fmt.Errorf("dream lock %s: %w", path, err)
		}
		held = append(held, l)
	}
	return release, nil
}

// withNotesLock runs fn holding the notes store's write lock of dir,
// waiting as long as a note write would (filelock.Wait).
func withNotesLock(dir string, fn func() error) error {
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return fmt.Errorf("create notes folder %s: %w", dir, err)
	}
	l, err := filelock.Acquire(filepath.Join(dir, notesLockName), lockPerm, filelock.Wait)
	if err != nil {
		return fmt.Errorf("notes lock of %s: %w; a note write may be stuck: let it finish or stop it, then try again", dir, err)
	}
	defer l.Release()
	return fn()
}
