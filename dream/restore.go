package dream

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// Changes counts what a restore did to one scope folder.
type Changes struct {
	Created   int `json:"created"`   // entries the snapshot had and the folder did not
	Rewritten int `json:"rewritten"` // entries present in both, put back as they were
	Removed   int `json:"removed"`   // entries the folder had and the snapshot did not
}

// Add sums two counts.
func (c Changes) Add(o Changes) Changes {
	return Changes{c.Created + o.Created, c.Rewritten + o.Rewritten, c.Removed + o.Removed}
}

// tempPrefix names restore's temporary files like the notes store's own,
// so a restore killed mid-write leaves what the store already sweeps.
const tempPrefix = ".tmp-"

// restoreScope makes the folder dir hold exactly want (a snapshot of it):
// entries the snapshot lacks are removed, deepest first; the snapshot's
// folders, files and links are put back, parents first, each file by an
// atomic replace. An entry already as the snapshot has it is not touched.
// Names starting with a dot are neither read nor removed.
func restoreScope(dir string, want []Entry) (Changes, error) {
	var ch Changes
	cur, err := readScope(dir)
	if err != nil {
		return ch, err
	}
	wantBy := make(map[string]Entry, len(want))
	for _, e := range want {
		wantBy[e.Path] = e
	}
	for _, e := range want {
		if err := checkRel(e.Path, wantBy); err != nil {
			return ch, err
		}
	}
	curBy := make(map[string]Entry, len(cur))
	for _, e := range cur {
		curBy[e.Path] = e
	}
	// Remove, deepest first: in reverse path order a folder's entries come
	// before the folder.
	for i := len(cur) - 1; i >= 0; i-- {
		e := cur[i]
		w, keep := wantBy[e.Path]
		if keep && w.Kind == e.Kind && (e.Kind != kindLink || w.Link == e.Link) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		if err := os.Remove(p); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				return ch, fmt.Errorf("cannot remove folder %s, made after the snapshot: it holds files whose names start with a dot, which dream never snapshots; remove them and run notesoup dream --undo again", p)
			}
			return ch, fmt.Errorf("remove %s: %w", p, err)
		}
		if !keep {
			ch.Removed++
		}
		delete(curBy, e.Path)
	}
	sorted := append([]Entry(nil), want...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	for _, w := range sorted {
		p := filepath.Join(dir, filepath.FromSlash(w.Path))
		c, had := curBy[w.Path]
		if had && c.sum() == w.sum() {
			continue
		}
		var err error
		switch w.Kind {
		case kindDir:
			if err = os.MkdirAll(p, dirPerm); err == nil {
				err = os.Chmod(p, w.Mode.Perm())
			}
		case kindFile:
			if err = os.MkdirAll(filepath.Dir(p), dirPerm); err == nil {
				err = atomicfile.Write(p, w.Data, atomicfile.Options{TempPrefix: tempPrefix, Perm: w.Mode.Perm()})
			}
		case kindLink:
			if err = os.MkdirAll(filepath.Dir(p), dirPerm); err == nil {
				err = os.Symlink(w.Link, p)
			}
			if err == nil {
				err = atomicfile.SyncDir(filepath.Dir(p))
			}
		default:
			err = fmt.Errorf("unknown kind %q in the snapshot", w.Kind)
		}
		if err != nil {
			return ch, fmt.Errorf("restore %s: %w", p, err)
		}
		if had {
			ch.Rewritten++
		} else {
			ch.Created++
		}
	}
	if ch.Removed > 0 {
		atomicfile.SyncDir(dir)
	}
	return ch, nil
}

// checkRel refuses a snapshot path that would leave the scope folder or
// touch what a snapshot never holds: a damaged or planted snapshot file
// must not make a restore write elsewhere. A path is local, has no element
// starting with a dot, and has no link among its folders (a restore would
// write through it).
func checkRel(p string, all map[string]Entry) error {
	bad := p == "" || !filepath.IsLocal(filepath.FromSlash(p))
	for i, part := range strings.Split(p, "/") {
		if bad || skip(part) {
			bad = true
			break
		}
		if parent := strings.Join(strings.Split(p, "/")[:i], "/"); i > 0 && all[parent].Kind == kindLink {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("snapshot entry %q is not a path inside the notes folder that a snapshot can hold; the snapshot is damaged, nothing restored", p)
	}
	return nil
}
