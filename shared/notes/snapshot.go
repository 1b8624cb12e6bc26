package notes

import (
	"errors"
	"io/fs"
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
		err := sc.walk(func(n Name, path string, _ fs.DirEntry) error {
			data, _, mtime, err := rawRead(path, 0)
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted since the walk
			}
			if err != nil {
				return ioErr("read note "+n.String(), err)
			}
			snap.Notes = append(snap.Notes, Note{Name: n.String(), Size: int64(len(data)), Modified: mtime, Content: string(data)})
			return nil
		})
		if err != nil {
			return Snapshot{}, err
		}
		ns := snap.Notes[start:]
		sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	}
	return snap, nil
}
