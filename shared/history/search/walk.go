package search

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/shared/history"
)

// The file walkers find session files by the same rules as each harness's
// ListSessions, but read nothing from them: a search stats and reads each
// file anyway, and listing would read every head and tail once more. The id
// comes from the file name, which each harness derives from the session id.

// uuidLen is the length of a textual UUID, the suffix of Pi and Codex
// session file names.
const uuidLen = 36

// dirEntry is a directory entry as the walkers need it.
type dirEntry struct {
	path string // the directory's path, a separator, name
	name string // the end of path
	kind int
}

// Entry kinds: a walker enters directories and lists regular files only
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

// ClaudeFiles lists <root>/<project>/<session id>.jsonl under each root
// (subagent transcripts live one level deeper and are not sessions).
func ClaudeFiles(roots []string) ([]history.Session, error) {
	var found [][]dirEntry
	var errs []error
	for _, root := range roots {
		projects, err := readDir(root, dirPrefix(root))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, p := range projects {
			if p.kind != kindDir {
				continue
			}
			files, err := readDir(p.path, dirPrefix(p.path))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			kept := files[:0]
			for _, f := range files {
				if f.kind == kindFile && strings.HasSuffix(f.name, ".jsonl") {
					kept = append(kept, f)
				}
			}
			found = append(found, kept)
		}
	}
	return sessionsOf(found, harnessClaude, func(name string) string { return strings.TrimSuffix(name, ".jsonl") }), errors.Join(errs...)
}

// sessionsOf makes the sessions of the files found, in order, allocating
// them once (fresh memory costs a fault per page: see readDir).
func sessionsOf(found [][]dirEntry, harness string, id func(name string) string) []history.Session {
	n := 0
	for _, fs := range found {
		n += len(fs)
	}
	out := make([]history.Session, 0, n)
	for _, fs := range found {
		for _, f := range fs {
			out = append(out, history.Session{Harness: harness, ID: id(f.name), Path: f.path})
		}
	}
	return out
}

// PiFiles lists *.jsonl files at most two levels under each root
// (<root>/--<cwd>--/<time>_<id>.jsonl, or flat in a custom session dir).
func PiFiles(roots []string) ([]history.Session, error) {
	return walkFiles(roots, 2, harnessPi, func(name string) bool { return strings.HasSuffix(name, ".jsonl") })
}

// CodexFiles lists rollout-*.jsonl files at any depth under each root
// (sessions/YYYY/MM/DD and the flat archived_sessions).
func CodexFiles(roots []string) ([]history.Session, error) {
	return walkFiles(roots, -1, harnessCodex, func(name string) bool {
		return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
	})
}

// walkFiles lists the files under each root that want accepts, at most
// maxDepth levels down (any depth when negative), in lexical order like
// filepath.WalkDir: a missing root is no error, an unreadable directory
// below a root hides only itself.
func walkFiles(roots []string, maxDepth int, harness string, want func(string) bool) ([]history.Session, error) {
	var found [][]dirEntry
	var errs []error
	var seen map[string]bool // only overlapping roots can repeat a file
	if len(roots) > 1 {
		seen = map[string]bool{}
	}
	var run []dirEntry // files in walk order since the last directory
	add := func(e dirEntry) {
		if seen != nil {
			if seen[e.path] {
				return
			}
			seen[e.path] = true
		}
		run = append(run, e)
	}
	flush := func() {
		if len(run) > 0 {
			found = append(found, run)
			run = nil
		}
	}
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		ents, err := readDir(dir, dirPrefix(dir))
		if err != nil {
			return err
		}
		run = ents[:0] // this directory's files, in its own entries
		for _, e := range ents {
			switch {
			case e.kind == kindDir && (maxDepth < 0 || depth+1 < maxDepth):
				flush()
				walk(e.path, depth+1) // an unreadable directory hides only itself
				run = nil
			case e.kind == kindFile && want(e.name):
				add(e)
			}
		}
		flush()
		return nil
	}
	for _, root := range roots {
		root = filepath.Clean(root)
		fi, err := os.Lstat(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch kindOf(fi.Mode()) {
		case kindFile:
			if want(fi.Name()) {
				add(dirEntry{path: root, name: fi.Name()})
				flush()
			}
		case kindDir:
			if err := walk(root, 0); err != nil {
				errs = append(errs, err) // the root itself must be readable
			}
		}
	}
	return sessionsOf(found, harness, idFromName), errors.Join(errs...)
}

// dirPrefix is dir with one trailing separator, to join names to.
func dirPrefix(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// idFromName takes the UUID at the end of a Pi or Codex file name.
func idFromName(name string) string {
	base := strings.TrimSuffix(name, ".jsonl")
	if len(base) >= uuidLen {
		return base[len(base)-uuidLen:]
	}
	return base
}

// Harness names the walkers and the fork check still know. TODO(#16): the
// harnesses supply their file layout and fork parents through the contract.
const (
	harnessClaude = "claude"
	harnessPi     = "pi"
	harnessCodex  = "codex"
)
