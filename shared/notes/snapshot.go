package notes

import (
	"sort"
	"time"
)

// Note is one note with its full text, as the boot block needs it.
type Note struct {
	Name     string    `json:"name"` // "api/auth.md" or "~/style.md"
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	Content  string    `json:"content"`
}

// Snapshot is every note a space sees, read once.
type Snapshot struct {
	Project string `json:"project"` // the project root
	Notes   []Note `json:"notes"`   // project notes, then global; each scope by name
}

// Snapshot reads every note of both scopes. It takes no lock: writes are
// atomic renames, so each note read is some complete version of it.
func (sp *Space) Snapshot() (Snapshot, error) {
	snap := Snapshot{Project: sp.root}
	for _, sc := range []*scope{sp.project, sp.global} {
		start := len(snap.Notes)
		files, err := sc.readNotes(func(Name) bool { return true }, 0)
		if err != nil {
			return Snapshot{}, err
		}
		for _, f := range files {
			snap.Notes = append(snap.Notes, Note{Name: f.name.String(), Size: int64(len(f.data)), Modified: f.mtime, Content: string(f.data)})
		}
		ns := snap.Notes[start:]
		sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	}
	return snap, nil
}
