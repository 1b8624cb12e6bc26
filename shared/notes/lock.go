package notes

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/notesoup/notesoup/internal/filelock"
)

// lockWait bounds how long a write waits for the scope lock
// (filelock.Wait); tests lower it.
var lockWait = filelock.Wait

// lock takes the scope's exclusive lock (internal/filelock), creating the
// scope folder and lock file when needed. The kernel releases it when the
// holder exits or is killed, so a crashed writer never leaves a stale lock;
// a holder that hangs makes the write fail after lockWait with an error
// naming its pid. Every write, edit and delete takes it here, whichever
// front end (CLI, MCP server, helper) asked.
func (sc *scope) lock() (unlock func(), err error) {
	if err := mkdirAllSync(sc.dir); err != nil {
		return nil, ioErr("create notes folder "+sc.dir, err)
	}
	l, err := filelock.Acquire(filepath.Join(sc.dir, lockName), filePerm, lockWait)
	var te *filelock.TimeoutError
	if errors.As(err, &te) {
		holder := "another process"
		if te.PID > 0 {
			holder = fmt.Sprintf("pid %d", te.PID)
		}
		if te.Busy { // many writers in turn, none stuck
			return nil, &Error{Code: CodeIO, Err: err, Message: fmt.Sprintf(
				"the %s notes were busy: other writers took the lock in turn for the whole %v wait (%s; %s holds it now); try again in a moment",
				sc.label(), te.Wait, te.Path, holder)}
		}
		return nil, &Error{Code: CodeIO, Err: err, Message: fmt.Sprintf(
			"the %s notes are locked by %s, which has held the lock for the whole %v wait (%s); it may be stuck: let it finish or stop it, then try again",
			sc.label(), holder, te.Wait, te.Path)}
	}
	if err != nil {
		return nil, ioErr("lock "+sc.dir, err)
	}
	return func() { l.Release() }, nil
}
