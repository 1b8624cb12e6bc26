package notes

import (
	"errors"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/notesoup/notesoup/internal/rawread"
)

// Reading many notes at once (List, Snapshot) spreads the reads over a few
// goroutines. Each note costs four syscalls (open, fstat, read, close) of a
// few microseconds each on a virtual machine, with nothing to share between
// notes, so a boot block over 500 notes is bound by syscall latency that
// more cores divide.
const (
	// maxReadWorkers caps the goroutines (never more than GOMAXPROCS
	// either): past eight, a few hundred small reads gain nothing more.
	maxReadWorkers = 8
	// notesPerWorker is the least work worth a goroutine; a scope of a few
	// notes is read on the caller's goroutine.
	notesPerWorker = 16
)

// noteFile is one note the walk found and what reading it gave.
type noteFile struct {
	name  Name
	path  string
	data  []byte // the whole note, or its first limit bytes
	size  int64  // the note's full size
	mtime time.Time
	err   error
}

// readNotes walks the scope and reads every note keep accepts (its first
// limit bytes, or all of it when limit is 0), in walk order. A note deleted
// since the walk is dropped; any other failure is returned naming the note.
//
// The walk finishes before the reads start: on two cores, reading while
// the walk goes on was slower (three goroutines for two cores).
//
// At most maxNotes notes are read (0: all), the first in walk order; the
// others are only counted in skipped. When budget is not nil it bounds the
// bytes all reads together keep beyond firstLineProbe per note: each read
// reserves its limit from it and gives back what it did not use, so a
// store of many large notes (written by other tools) costs a bounded
// amount of memory. A note read short for want of budget has data shorter
// than size.
func (sc *scope) readNotes(keep func(Name) bool, limit, maxNotes int, budget *atomic.Int64) (files []noteFile, skipped int, err error) {
	err = sc.walk(func(n Name, path string, _ fs.DirEntry) error {
		if !keep(n) {
			return nil
		}
		if maxNotes > 0 && len(files) >= maxNotes {
			skipped++
			return nil
		}
		files = append(files, noteFile{name: n, path: path})
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	read := func(f *noteFile) {
		lim := limit
		if budget != nil {
			lim = reserve(budget, limit)
		}
		f.data, f.size, f.mtime, f.err = rawread.Read(f.path, lim)
		if f.size > MaxNoteBytes && limit > MaxNoteBytes {
			f.data = nil // too large to be a note: nothing of it is kept (or counted)
		}
		if budget != nil {
			budget.Add(int64(lim - max(len(f.data), firstLineProbe)))
		}
	}
	if workers := min(runtime.GOMAXPROCS(0), maxReadWorkers, len(files)/notesPerWorker); workers > 1 {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1) - 1; i < int64(len(files)); i = next.Add(1) - 1 {
					read(&files[i])
				}
			}()
		}
		wg.Wait()
	} else {
		for i := range files {
			read(&files[i])
		}
	}
	kept := files[:0]
	for _, f := range files {
		switch {
		case errors.Is(f.err, fs.ErrNotExist): // deleted since the walk
		case f.err != nil:
			return nil, 0, ioErr("read note "+f.name.String(), f.err)
		default:
			kept = append(kept, f)
		}
	}
	return kept, skipped, nil
}

// reserve takes up to limit bytes from budget and returns how many a read
// may use: never less than firstLineProbe (so every note still shows its
// first line), which the budget does not count.
func reserve(budget *atomic.Int64, limit int) int {
	for {
		left := budget.Load()
		take := min(int64(max(limit-firstLineProbe, 0)), max(left, 0))
		if budget.CompareAndSwap(left, left-take) {
			return firstLineProbe + int(take)
		}
	}
}
