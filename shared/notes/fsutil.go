package notes

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// tempPrefix starts every temporary file's name; the leading dot keeps
// temporary files out of listings and out of note names.
const tempPrefix = ".tmp-"

// writeAtomic replaces path with data (shared/atomicfile), creating its
// folder first. Readers see the old or the new note, never a torn one.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := mkdirAllSync(dir); err != nil {
		return err
	}
	return atomicfile.Write(path, data, atomicfile.Options{TempPrefix: tempPrefix, Perm: filePerm})
}

// mkdirAllSync creates dir and its missing parents, fsyncing each parent so
// a new folder survives a crash together with the note inside it.
func mkdirAllSync(dir string) error {
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR}
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := mkdirAllSync(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, dirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(parent)
}

func syncDir(dir string) error { return atomicfile.SyncDir(dir) }

// removeEmptyParents removes now-empty folders between the deleted note and
// the scope root, so a deleted "api/auth.md" does not leave an empty "api/".
func removeEmptyParents(root, dir string) {
	for within(root, dir) && dir != root {
		if err := os.Remove(dir); err != nil {
			return // not empty, or gone: either way stop
		}
		dir = filepath.Dir(dir)
	}
}
