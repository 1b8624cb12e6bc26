package notes

import (
	"sort"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Note is one note with its full text, as the boot block needs it.
type Note struct {
	Name     string    `json:"name"` // "api/auth.md" or "~/style.md"
	Size     int64     `json:"size"` // the file's size on disk
	Modified time.Time `json:"modified"`
	Content  string    `json:"content"`
	// TooLarge is true for a note over MaxNoteBytes on disk (only another
	// tool can have written it): Content is empty, and the note cannot be
	// read until a person splits or trims it.
	TooLarge bool `json:"too_large,omitempty"`
	// Partial is true when Content is only the start of the note: the
	// snapshot had read SnapshotMaxBytes of notes by then.
	Partial bool `json:"partial,omitempty"`
}

// Snapshot is every note a space sees, read once.
type Snapshot struct {
	Project string `json:"project"` // the project root
	Notes   []Note `json:"notes"`   // project notes, then global; each scope by name
	// Unread counts notes left out because their scope holds more than
	// MaxScopeNotes (the first by name are kept).
	Unread int `json:"unread,omitempty"`
}

// SnapshotMaxBytes bounds the note text one Snapshot holds: two scopes
// at their write limit. Only a store written by other tools reaches it;
// the notes read after that keep their first line only (Partial).
const SnapshotMaxBytes = 2 * MaxScopeBytes

// snapshotMaxBytes is SnapshotMaxBytes; tests lower it.
var snapshotMaxBytes int64 = SnapshotMaxBytes

// Snapshot reads every note of both scopes. It takes no lock: writes are
// atomic renames, so each note read is some complete version of it.
//
// Whatever other tools put in the notes folders, it reads at most
// MaxScopeNotes notes per scope, at most MaxNoteBytes+1 bytes of each, and
// SnapshotMaxBytes in all (plus a first line of every note). What it left
// out is marked: TooLarge and Partial notes, and the Unread count.
func (sp *Space) Snapshot() (Snapshot, error) {
	snap := Snapshot{Project: sp.root}
	var budget atomic.Int64
	budget.Store(snapshotMaxBytes)
	for _, sc := range []*scope{sp.project, sp.global} {
		start := len(snap.Notes)
		files, skipped, err := sc.readNotes(func(Name) bool { return true }, MaxNoteBytes+1, int(maxScopeNotes), &budget)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Unread += skipped
		for _, f := range files {
			n := Note{Name: f.name.String(), Size: f.size, Modified: f.mtime}
			switch {
			case f.size > MaxNoteBytes:
				n.TooLarge = true
			case int64(len(f.data)) < f.size:
				n.Partial = true
				n.Content = string(cutRunes(f.data))
			default:
				n.Content = string(f.data)
				n.Size = int64(len(f.data)) // what was read, should the file change under the read
			}
			snap.Notes = append(snap.Notes, n)
		}
		ns := snap.Notes[start:]
		sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	}
	return snap, nil
}

// cutRunes drops a character cut in two at the end of b.
func cutRunes(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}
