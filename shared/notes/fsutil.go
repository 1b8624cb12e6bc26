package notes

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// tempPrefix starts every temporary file's name; the leading dot keeps
// temporary files out of listings and out of note names.
const tempPrefix = ".tmp-"

// writeAtomic replaces path with data: a temporary file in the same folder
// is written, fsynced and renamed over path, and the folder is fsynced so
// the rename itself survives a crash. Readers see the old or the new note,
// never a torn one.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := mkdirAllSync(dir); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	return syncDir(dir)
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

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

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
