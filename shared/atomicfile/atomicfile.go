// Package atomicfile replaces files so that a reader, or the next process
// after a crash, sees the old content or the new, never a mix: a temporary
// file in the same folder is written, fsynced and renamed over the target,
// and the folder is fsynced so the rename itself is durable. Every file
// notesoup replaces goes through it (notes, reset state, `notesoup install`,
// the session description cache, the test model server's files); the
// search's caches skip the fsyncs on purpose (Options.NoSync): a torn cache
// fails its checksum and costs one search the work it saved.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options adjust a write.
type Options struct {
	// TempPrefix starts the temporary file's name (default "."+base+".tmp-"),
	// so a caller can recognise and sweep temporaries a killed writer left.
	TempPrefix string
	// Perm is the new file's mode (default 0600: notes and state are private).
	Perm os.FileMode
	// BeforeRename runs after the data is durable and before the rename; an
	// error aborts the write and leaves the target untouched (a caller uses
	// it to refuse when the target changed since it was read).
	BeforeRename func() error
	// NoSync skips both fsyncs, for caches whose every read checks a
	// checksum: after a crash such a file may be torn or empty, which its
	// reader treats as missing. Readers still never see a partial write.
	NoSync bool
}

// Write replaces path with data. The folder must exist. A symbolic link at
// path is itself replaced by the new file; to write through it and keep
// the link (a dotfiles link), Write to Target(path) instead.
func Write(path string, data []byte, o Options) error {
	dir := filepath.Dir(path)
	prefix := o.TempPrefix
	if prefix == "" {
		prefix = "." + filepath.Base(path) + ".tmp-"
	}
	perm := o.Perm
	if perm == 0 {
		perm = 0o600
	}
	tmp, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", name, err)
	}
	if !o.NoSync {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %w", name, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	if o.BeforeRename != nil {
		if err := o.BeforeRename(); err != nil {
			return err
		}
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", name, path, err)
	}
	done = true
	if o.NoSync {
		return nil
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a folder, making renames and creations in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Target returns the file a write to path should replace so that a
// symbolic link at path stays a link: path itself when it is not a link
// (or does not exist yet), else the file the chain of links finally names
// (resolved as the kernel would, linked folders included). The rename then
// happens in that file's folder, atomically as ever. A link to nothing or
// a cycle of links is an error naming path and where the link points,
// since writing through it would create a file where the person did not
// look.
func Target(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil // nothing there yet: the write creates it
	}
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	dest, _ := os.Readlink(path)
	target, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is a symbolic link to %s, which does not exist: create that file, or replace the link with a file", path, dest)
	}
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link to %s that cannot be followed (%v): point it at a file", path, dest, err)
	}
	return target, nil
}
