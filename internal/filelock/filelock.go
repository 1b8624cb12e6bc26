// Package filelock is notesoup's one inter-process lock: an exclusive flock
// on a lock file. The kernel drops an flock when its holder exits or is
// killed, so a crashed writer never leaves a stale lock; a live holder that
// stops (a suspended process, a hung disk) is met with a bounded wait and a
// named error instead of a caller that hangs with it.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Wait is how long Acquire waits for a lock before giving up. A lock is held
// for one read-modify-write of a small file (a note, a reset state):
// milliseconds, fsyncs included, even with a dozen writers queued. Ten
// seconds is far past that, and well inside the timeouts of the harness
// hooks and tool calls that take these locks, so a stuck holder becomes an
// error the caller can report rather than a hook the harness kills.
const Wait = 10 * time.Second

// The poll interval starts short, so a lock freed a moment later is taken
// a moment later, and doubles to a ceiling that keeps a long wait from
// spinning. (A blocking flock cannot be given a deadline: only a signal
// interrupts it, and the Go runtime does not send one to a chosen thread.)
const (
	firstPoll = 100 * time.Microsecond
	maxPoll   = 5 * time.Millisecond
)

// ErrTimeout is wrapped by Acquire when the lock stayed held for the whole wait.
var ErrTimeout = errors.New("another process held the lock for the whole wait")

// ErrUnsupported is returned on platforms without flock: writing unlocked
// could lose an update between two processes.
var ErrUnsupported = errors.New("file locking is not supported on this platform")

// Lock is a held lock. Release (or the holder's exit) frees it.
type Lock struct{ f *os.File }

// Acquire opens (creating it with perm when missing) the lock file at path
// and takes its exclusive lock, waiting at most wait. The lock file must be a
// regular file and is not followed through a symbolic link: a planted link
// or FIFO is refused, not opened. Each Acquire opens the file anew, so two
// goroutines of one process exclude each other just as two processes do.
func Acquire(path string, perm os.FileMode, wait time.Duration) (*Lock, error) {
	f, err := open(path, perm)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	poll := firstPoll
	for {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if held {
			return &Lock{f: f}, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w (%v)", path, ErrTimeout, wait)
		}
		time.Sleep(min(poll, left))
		poll = min(2*poll, maxPoll)
	}
}

// Release frees the lock. Closing the descriptor drops the flock.
func (l *Lock) Release() error { return l.f.Close() }
