package search

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// A file's change time (ctime) moves with every write and cannot be set
// back, so once a file has been quiet for a while, a stat that finds the
// same size, modification time, change time and inode proves it unchanged
// without reading it: any later write would have moved the change time
// past the one recorded. Not so for a file written just before its key was
// taken: a write in the same tick of the file system's clock (a jiffy on
// Linux, seconds on some file systems) can leave every stat field as it
// was. Such a key is racy, as git calls the same case of its index: it is
// proven by the hash of its tail as well, until a proof taken when it is no
// longer racy settles it. Where the system gives no change time, every key
// is racy and every proof reads the tail.
//
// racyWindow is how long after a file's change time its key stays racy:
// far above any file system's timestamp tick and small beside how long a
// transcript stays untouched between sessions. A variable for tests.
var racyWindow = 3 * time.Second

// racyAt says whether a key taken at now (UnixNano) is racy.
func racyAt(k FileKey, now int64) bool {
	return k.CTime == 0 || now-k.CTime < int64(racyWindow)
}

// statProves says whether a stat-only key (no tail) proves the file
// unchanged since the manifest entry's key was taken: only for entries
// that are not racy, and only when every stat field agrees.
func statProves(e *entry, k FileKey) bool {
	return e != nil && !e.Racy && e.Key.sameStat(k)
}

// provenByStat says whether stat-only keys prove an index entry's file
// (its key k) and the fork parents it inherits from unchanged.
func (w *worker) provenByStat(e *entry, k FileKey) bool {
	if !statProves(e, k) {
		return false
	}
	for dep, want := range e.Deps {
		if !w.depStat(dep).sameStat(want) {
			return false
		}
	}
	return true
}

// depStat is depKey without the tail hash.
func (w *worker) depStat(dep string) FileKey {
	if _, _, ok := parseMissingIDDep(dep); ok {
		k, _ := w.depKey(dep)
		return k
	}
	k, ok := lstatKey(dep)
	if !ok {
		if _, err := os.Lstat(dep); errors.Is(err, fs.ErrNotExist) {
			return missingKey
		}
		return FileKey{} // not a regular file: no key proves it
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
	if racyAt(e.Key, now) {
		return
	}
	for _, k := range e.Deps {
		if k != missingKey && racyAt(k, now) {
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
