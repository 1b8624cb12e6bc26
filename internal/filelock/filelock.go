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
	"strconv"
	"strings"
	"time"
)

// Wait is how long Acquire waits for a lock before giving up. A lock is held
// for one read-modify-write of a small file (a note, a reset state):
// milliseconds, fsyncs included, even with a dozen writers queued. Ten
// seconds is far past that, and well inside the timeouts of the harness
// hooks and tool calls that take these locks, so a stuck holder becomes an
// error the caller can report rather than a hook the harness kills.
const Wait = 10 * time.Second

// ErrTimeout is wrapped by Acquire when the lock stayed held for the whole wait.
var ErrTimeout = errors.New("another process held the lock for the whole wait")

// TimeoutError is Acquire's error when the lock stayed held for the whole
// wait. It matches ErrTimeout (errors.Is) and names the holder, so the
// person can tell which process to look at.
type TimeoutError struct {
	Path string
	Wait time.Duration
	// PID is the holder's process id as it wrote it into the lock file;
	// 0 when the file does not say (a holder from an older notesoup).
	PID int
	// Busy is true when the lock changed hands during the wait (the pid at
	// its end differs from the one at its start): not one stuck holder but
	// more writers than the wait could serve.
	Busy bool
}

func (e *TimeoutError) Error() string {
	switch {
	case e.Busy:
		return fmt.Sprintf("lock %s was taken by other processes in turn for the whole %v wait (pid %d holds it now)", e.Path, e.Wait, e.PID)
	case e.PID > 0:
		return fmt.Sprintf("lock %s is held by pid %d, which kept it for the whole %v wait", e.Path, e.PID, e.Wait)
	}
	return fmt.Sprintf("lock %s: %v (%v)", e.Path, ErrTimeout, e.Wait)
}

// Unwrap makes a TimeoutError match ErrTimeout.
func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// pidRecord is the holder's pid as written into the lock file: fixed width,
// so each holder overwrites the last one whole with one small write and a
// waiter never reads two pids run together.
const pidRecordLen = 12

func pidRecord(pid int) []byte {
	return []byte(fmt.Sprintf("%-*d\n", pidRecordLen-1, pid))
}

// holderPID reads the pid the current holder wrote into the lock file, or
// 0 when there is none to read.
func holderPID(f *os.File) int {
	buf := make([]byte, pidRecordLen)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// ErrUnsupported is returned on platforms without flock: writing unlocked
// could lose an update between two processes.
var ErrUnsupported = errors.New("file locking is not supported on this platform")

// Lock is a held lock. Release (or the holder's exit) frees it.
type Lock struct{ f *os.File }

// Acquire opens (creating it with perm when missing) the lock file at path
// and takes its exclusive lock, waiting at most wait. The holder writes its
// pid into the file, so a waiter that gives up gets a *TimeoutError naming it. The lock file must be a
// regular file and is not followed through a symbolic link: a planted link
// or FIFO is refused, not opened. Each Acquire opens the file anew, so two
// goroutines of one process exclude each other just as two processes do.
func Acquire(path string, perm os.FileMode, wait time.Duration) (*Lock, error) {
	f, err := open(path, perm)
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !held {
		// Wait in the kernel's queue, on a thread of its own, so the wait
		// can be bounded: a blocking flock takes no deadline, and only a
		// signal would interrupt it. A waiter that gives up leaves that
		// thread to take the lock when it frees and drop it at once.
		first := holderPID(f)
		done := make(chan error, 1)
		go func() { done <- lock(f) }()
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case err := <-done:
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
		case <-timer.C:
			pid := holderPID(f)
			go func() { <-done; f.Close() }()
			return nil, &TimeoutError{Path: path, Wait: wait, PID: pid, Busy: pid != first}
		}
	}
	// Say who holds the lock, for a waiter that gives up. A failed write
	// (a full disk) costs only that message.
	if _, err := f.WriteAt(pidRecord(os.Getpid()), 0); err == nil {
		f.Truncate(pidRecordLen)
	}
	return &Lock{f: f}, nil
}

// Release frees the lock. Closing the descriptor drops the flock.
func (l *Lock) Release() error { return l.f.Close() }
