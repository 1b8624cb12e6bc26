// Package walk finds a harness's session files under its roots from the
// directory entries alone, reading nothing from the files: a search reads
// every file anyway, and a listing describes each one once it has its path.
//
// It is one walker for every harness, because a session listing and a
// search must cover the same files (a search that missed a session
// history_list can read, or read a file it cannot, would be wrong), and
// because the walk runs on every search: it reads each directory with
// large getdents calls and allocates one string per entry (see readDir).
package walk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/contract"
)

// Spec says where a harness keeps its session files and how a file's name
// gives its session id. Depths count the directories between a root and a
// file: a file directly in a root is at depth 0.
type Spec struct {
	// Harness is set on every session found.
	Harness string
	// MinDepth and MaxDepth bound the depths at which files are kept;
	// no directory deeper than MaxDepth is read. A negative MaxDepth is
	// any depth.
	MinDepth, MaxDepth int
	// Keep reports whether a regular file of this name is a session file.
	Keep func(name string) bool
	// ID derives the session id from a kept file's name.
	ID func(name string) string
	// Strict reads every root as a directory, through a symbolic link (a
	// root is the user's own choice), and makes a root that is not a
	// directory an error. Otherwise a root is taken as filepath.WalkDir
	// takes it: a root that is a symbolic link is not followed, and a
	// regular file root is a candidate file itself.
	//
	// Either way a directory below a root that cannot be read (a project
	// folder left by `sudo claude`) hides only itself, with a notice on
	// stderr: one such folder must not hide every session of the harness.
	//
	// Either way a missing root lists nothing, and nothing below a root is
	// followed through a symbolic link or listed unless it is a regular
	// file: a link could lead anywhere on the machine, and only files
	// under the roots may be read.
	Strict bool
}

// Files lists the session files under roots, in lexical order per root as
// filepath.WalkDir walks them, each once even when roots overlap. It
// returns what it found along with every error (joined): one unreadable
// root does not hide the others.
func Files(roots []string, spec Spec) ([]contract.Session, error) {
	w := walker{spec: spec}
	if len(roots) > 1 {
		w.seen = map[string]bool{} // only overlapping roots can repeat a file
	}
	for _, root := range roots {
		root = filepath.Clean(root)
		if spec.Strict {
			if err := w.dir(root, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
				w.errs = append(w.errs, err)
			}
			continue
		}
		fi, err := os.Lstat(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			w.errs = append(w.errs, err)
			continue
		}
		switch kindOf(fi.Mode()) {
		case kindFile:
			if spec.MinDepth <= 0 && spec.Keep(fi.Name()) {
				w.add(dirEntry{path: root, name: fi.Name()})
				w.flush()
			}
		case kindDir:
			if err := w.dir(root, 0); err != nil {
				w.errs = append(w.errs, err) // the root itself must be readable
			}
		}
	}
	return w.sessions(), errors.Join(w.errs...)
}

// TrailingID returns the last n bytes of name once ext is cut from its end
// (all of it when shorter): the id of a file named <anything><id><ext>,
// such as a session UUID after a time stamp.
func TrailingID(name, ext string, n int) string {
	base := strings.TrimSuffix(name, ext)
	if len(base) > n {
		return base[len(base)-n:]
	}
	return base
}

// walker is one Files call's state.
type walker struct {
	spec Spec
	// found are runs of kept files, each a slice of one directory's
	// entries in walk order: the sessions are made from them at the end,
	// in one allocation (a fresh page of memory costs a fault).
	found [][]dirEntry
	run   []dirEntry // kept files since the last directory
	seen  map[string]bool
	errs  []error
}

func (w *walker) add(e dirEntry) {
	if w.seen != nil {
		if w.seen[e.path] {
			return
		}
		w.seen[e.path] = true
	}
	w.run = append(w.run, e)
}

func (w *walker) flush() {
	if len(w.run) > 0 {
		w.found = append(w.found, w.run)
		w.run = nil
	}
}

// dir walks the directory at depth, keeping its files at the kept depths
// and entering its subdirectories down to MaxDepth. Its own read error is
// returned; those of the directories below are kept (Strict) or dropped.
func (w *walker) dir(dir string, depth int) error {
	ents, err := readDir(dir, dirPrefix(dir))
	if err != nil {
		return err
	}
	keepFiles := depth >= w.spec.MinDepth
	enter := w.spec.MaxDepth < 0 || depth+1 <= w.spec.MaxDepth
	w.run = ents[:0] // this directory's kept files, in its own entries
	for _, e := range ents {
		switch {
		case e.kind == kindDir && enter:
			w.flush()
			if err := w.dir(e.path, depth+1); err != nil && !errors.Is(err, fs.ErrNotExist) {
				skipNotice(w.spec.Harness, e.path, err)
			}
			w.run = nil
		case e.kind == kindFile && keepFiles && w.spec.Keep(e.name):
			w.add(e)
		}
	}
	w.flush()
	return nil
}

// skipNotice says on stderr that a directory below a root was not read, so
// a person missing sessions can see why; the walk goes on without it.
func skipNotice(harness, dir string, err error) {
	Notice(harness, "session folder not read; its sessions are left out", "path", dir, "error", err)
}

// sessions makes the sessions of the files found, in order.
func (w *walker) sessions() []contract.Session {
	n := 0
	for _, run := range w.found {
		n += len(run)
	}
	out := make([]contract.Session, 0, n)
	for _, run := range w.found {
		for _, f := range run {
			out = append(out, contract.Session{Harness: w.spec.Harness, ID: w.spec.ID(f.name), Path: f.path})
		}
	}
	return out
}

// dirEntry is a directory entry as the walker needs it.
type dirEntry struct {
	path string // the directory's path, a separator, name
	name string // the end of path
	kind int
}

// Entry kinds: the walker enters directories and lists regular files only
// (symbolic links are neither, as for filepath.WalkDir).
const (
	kindOther = iota
	kindDir
	kindFile
)

func kindOf(m fs.FileMode) int {
	switch {
	case m.IsDir():
		return kindDir
	case m.IsRegular():
		return kindFile
	}
	return kindOther
}

// dirPrefix is dir with one trailing separator, to join names to.
func dirPrefix(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// Inside reports whether path lies inside one of roots once every symbolic
// link in both is resolved: a file a decoder finds by name (a fork's
// parent) is read only when it really is under the harness's roots, not
// reached through a linked folder that leads out of them. A path or root
// that cannot be resolved is not inside.
func Inside(path string, roots []string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	for _, r := range roots {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rr, real)
		if err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
