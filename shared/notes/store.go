package notes

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// HomeEnv names the environment variable that moves the notes home.
const HomeEnv = "NOTESOUP_HOME"

// Layout under the notes home.
const (
	projectsDir = "projects" // one folder per project scope
	globalDir   = "global"   // the person's global scope
	// slugMaxBytes keeps project folder names readable; the hash, not the
	// slug, makes them unique.
	slugMaxBytes = 40
	// hashHexChars is how much of the path's SHA-256 the folder name keeps:
	// 48 bits make a collision between one person's projects vanishingly rare.
	hashHexChars = 12
	// lockName is the per-scope lock file; the leading dot keeps it out of
	// note names.
	lockName = ".lock"
	// dirPerm and filePerm keep notes private to their owner: they may hold
	// anything the person or model wrote down.
	dirPerm  = 0o700
	filePerm = 0o600
)

// Store is the notes home: every project scope and the global scope.
type Store struct {
	home string
}

// Open returns the store rooted at home. An empty home means DefaultHome.
// A relative home is made absolute now, so a later change of the process's
// working directory cannot move the notes. Nothing is created until the
// first write.
func Open(home string) *Store {
	if home == "" {
		home, _ = DefaultHome()
	}
	if home != "" {
		if abs, err := filepath.Abs(home); err == nil {
			home = abs
		}
	}
	return &Store{home: home}
}

// DefaultHome returns $NOTESOUP_HOME, or ~/.notesoup when it is unset.
func DefaultHome() (string, error) {
	if h := os.Getenv(HomeEnv); h != "" {
		return h, nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("notes home: $%s is unset and the user's home is unknown (%v); set %s", HomeEnv, err, HomeEnv)
	}
	return filepath.Join(u, ".notesoup"), nil
}

// Home returns the store's root directory.
func (s *Store) Home() string { return s.home }

// Space is what one session sees: the project scope of its working directory
// and the global scope. All five operations are methods of Space.
type Space struct {
	store   *Store
	root    string // the project root (git root of cwd, else cwd), absolute, symlinks resolved
	project *scope
	global  *scope
}

// scope is one folder of notes with its own lock.
type scope struct {
	dir    string
	global bool
	// real caches dir with links resolved once it exists. Resolving costs a
	// stat per path element on every operation otherwise, and the notes
	// home does not move while a process runs.
	real atomic.Pointer[string]
}

// realDir returns the scope folder with links resolved, or an error
// matching fs.ErrNotExist when the folder does not exist yet.
func (sc *scope) realDir() (string, error) {
	if r := sc.real.Load(); r != nil {
		return *r, nil
	}
	r, err := filepath.EvalSymlinks(sc.dir)
	if err != nil {
		return "", err
	}
	sc.real.Store(&r)
	return r, nil
}

// Space resolves cwd to its project (the nearest enclosing folder that has a
// .git entry, else cwd itself) and returns the notes that project sees. Two
// harnesses in the same project get the same project scope, whatever path
// spelling (symlinks, trailing slash) they report.
func (s *Store) Space(cwd string) (*Space, error) {
	if s.home == "" {
		return nil, refuse(CodeInvalidRequest, "notes home is unknown; set %s to a folder for notes", HomeEnv)
	}
	if cwd == "" {
		return nil, refuse(CodeInvalidRequest, "cwd is empty; pass the session's working directory")
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, refuse(CodeInvalidRequest, "cwd %q: %v", cwd, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, refuse(CodeInvalidRequest, "cwd %q does not exist or cannot be resolved (%v); pass an existing directory", cwd, err)
	}
	root := ProjectRoot(real)
	return &Space{
		store:   s,
		root:    root,
		project: &scope{dir: filepath.Join(s.home, projectsDir, ProjectKey(root))},
		global:  &scope{dir: filepath.Join(s.home, globalDir), global: true},
	}, nil
}

// ProjectRoot returns the nearest folder at or above dir that contains a
// .git entry (a folder in a clone, a file in a worktree or submodule), else
// dir itself. dir must be absolute.
func ProjectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// ProjectKey returns the folder name of a project's scope: a readable slug of
// the root's last element and a short hash of the whole absolute path, e.g.
// "notesoup-3f2a9c01b7d4".
func ProjectKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return slug(filepath.Base(root)) + "-" + hex.EncodeToString(sum[:])[:hashHexChars]
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_'
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= slugMaxBytes {
			break
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "project"
	}
	return out
}

// Root returns the project root the space was resolved to.
func (sp *Space) Root() string { return sp.root }

// ProjectDir returns the folder holding the project scope's notes.
func (sp *Space) ProjectDir() string { return sp.project.dir }

// GlobalDir returns the folder holding the global scope's notes.
func (sp *Space) GlobalDir() string { return sp.global.dir }

func (sp *Space) scopeOf(n Name) *scope {
	if n.Global {
		return sp.global
	}
	return sp.project
}

// path resolves a note name to the file it is stored in, following links
// only while they stay inside the scope. It also refuses a name whose folder
// part is a note or whose file part is a folder.
func (sc *scope) path(n Name) (string, error) {
	realRoot, err := sc.realDir()
	if errors.Is(err, fs.ErrNotExist) {
		// No scope folder yet: nothing under it can be a link.
		return filepath.Join(sc.dir, filepath.FromSlash(n.Rel)), nil
	}
	if err != nil {
		return "", ioErr("notes folder "+sc.dir, err)
	}
	elems := strings.Split(n.Rel, "/")
	cur := realRoot
	for i, e := range elems {
		next := filepath.Join(cur, e)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(append([]string{cur}, elems[i:]...)...), nil
		}
		if err != nil {
			return "", ioErr("note "+n.String(), err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(next)
			if err != nil {
				return "", refuse(CodeInvalidName, "note name %q passes through a broken link (%s); remove the link or use another name", n, next)
			}
			if !within(realRoot, target) {
				return "", refuse(CodeInvalidName, "note name %q leads through a link outside the notes folder (to %s); notes must stay inside %s", n, target, sc.dir)
			}
			next = target
			if fi, err = os.Stat(target); err != nil {
				return "", ioErr("note "+n.String(), err)
			}
		}
		last := i == len(elems)-1
		if !last && !fi.IsDir() {
			return "", refuse(CodeInvalidName, "note name %q: %q is a note, not a folder; pick a name that does not nest under a note", n, strings.Join(elems[:i+1], "/"))
		}
		if last && fi.IsDir() {
			return "", refuse(CodeInvalidName, "note name %q is a folder, not a note; name a file inside it, e.g. %s/index.md", n, n)
		}
		if last && !fi.Mode().IsRegular() {
			return "", refuse(CodeInvalidName, "note name %q is not a regular file; use another name", n)
		}
		cur = next
	}
	return cur, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
