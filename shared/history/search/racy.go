package search

import (
	"errors"
	"io/fs"
	"os"

	"github.com/notesoup/notesoup/shared/filekey"
)

// Index entries are proven unchanged by the rule of package filekey: a
// settled entry by a stat alone, a racy one (see filekey.Racy) by its tail
// hash as well, until a proof taken when it is no longer racy settles it.

// statProves says whether a stat-only key (no tail) proves the file
// unchanged since the manifest entry's key was taken (filekey.StatProves).
func statProves(e *entry, k filekey.Key) bool {
	return e != nil && filekey.StatProves(e.Key, e.Racy, k)
}

// provenByStat says whether stat-only keys prove an index entry's file
// (its key k) and the fork parents it inherits from unchanged.
func (w *worker) provenByStat(e *entry, k filekey.Key) bool {
	if !statProves(e, k) {
		return false
	}
	for dep, want := range e.Deps {
		if !w.depStat(dep).SameStat(want) {
			return false
		}
	}
	return true
}

// depStat is depKey without the tail hash.
func (w *worker) depStat(dep string) filekey.Key {
	if _, _, ok := parseMissingIDDep(dep); ok {
		k, _ := w.depKey(dep)
		return k
	}
	k, ok := filekey.Lstat(dep)
	if !ok {
		if _, err := os.Lstat(dep); errors.Is(err, fs.ErrNotExist) {
			return missingKey
		}
		return filekey.Key{} // not a regular file: no key proves it
	}
	return k
}

// settle notes a racy entry that its tail hash has just proven unchanged
// by keys taken after now (UnixNano): when no key of it is racy by then,
// the index records it as settled, and later searches prove it by a stat
// alone.
func (w *worker) settle(path string, e *entry, now int64) {
	if e == nil || !e.Racy {
		return
	}
	if filekey.Racy(e.Key, now) {
		return
	}
	for _, k := range e.Deps {
		if k != missingKey && filekey.Racy(k, now) {
			return
		}
	}
	w.settled = append(w.settled, settledEntry{path, e})
}

// settledEntry is an entry of the manifest a search loaded, found settled.
type settledEntry struct {
	path string
	e    *entry
}

// sameEntry says whether two entries record the same file state and the
// same stored events (the racy mark aside).
func sameEntry(a, b *entry) bool {
	if a.Key != b.Key || a.Err != b.Err || a.Seg != b.Seg || a.First != b.First || a.Blocks != b.Blocks ||
		a.Updated != b.Updated || len(a.Deps) != len(b.Deps) {
		return false
	}
	for p, k := range a.Deps {
		if bk, ok := b.Deps[p]; !ok || bk != k {
			return false
		}
	}
	return true
}
