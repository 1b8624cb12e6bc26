package notes

import (
	"errors"
	"io"
	"io/fs"
	"os"
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
	for _, sc := range []scope{sp.project, sp.global} {
		var infos []NoteInfo
		paths := map[string]string{}
		err := sc.walk(func(n Name, path string, fi fs.FileInfo) error {
			infos = append(infos, NoteInfo{Name: n.String()})
			paths[n.String()] = path
			return nil
		})
		if err != nil {
			return Snapshot{}, err
		}
		sortInfos(infos)
		for _, in := range infos {
			data, fi, err := readFile(paths[in.Name])
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted since the walk
			}
			if err != nil {
				return Snapshot{}, ioErr("read note "+in.Name, err)
			}
			snap.Notes = append(snap.Notes, Note{Name: in.Name, Size: int64(len(data)), Modified: fi.ModTime().UTC(), Content: string(data)})
		}
	}
	return snap, nil
}

func readFile(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	// One read sized by the stat: notes are replaced by rename, so the
	// open file cannot change under us (a person editing in place may
	// shrink it, which ReadFull reports as a short read we accept).
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	return data[:n], fi, nil
}
