package search

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	name string
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
	var out []history.Session
	var errs []error
	for _, root := range roots {
		projects, err := readDir(root)
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
			dir := filepath.Join(root, p.name)
			files, err := readDir(dir)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			prefix := dirPrefix(dir)
			out = slices.Grow(out, len(files))
			for _, f := range files {
				if f.kind == kindFile && strings.HasSuffix(f.name, ".jsonl") {
					out = append(out, history.Session{Harness: history.HarnessClaude, ID: strings.TrimSuffix(f.name, ".jsonl"), Path: prefix + f.name})
				}
			}
		}
	}
	return out, errors.Join(errs...)
}

// PiFiles lists *.jsonl files at most two levels under each root
// (<root>/--<cwd>--/<time>_<id>.jsonl, or flat in a custom session dir).
func PiFiles(roots []string) ([]history.Session, error) {
	return walkFiles(roots, 2, history.HarnessPi, func(name string) bool { return strings.HasSuffix(name, ".jsonl") })
}

// CodexFiles lists rollout-*.jsonl files at any depth under each root
// (sessions/YYYY/MM/DD and the flat archived_sessions).
func CodexFiles(roots []string) ([]history.Session, error) {
	return walkFiles(roots, -1, history.HarnessCodex, func(name string) bool {
		return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl")
	})
}

// walkFiles lists the files under each root that want accepts, at most
// maxDepth levels down (any depth when negative), in lexical order like
// filepath.WalkDir: a missing root is no error, an unreadable directory
// below a root hides only itself.
func walkFiles(roots []string, maxDepth int, harness string, want func(string) bool) ([]history.Session, error) {
	var out []history.Session
	var errs []error
	var seen map[string]bool // only overlapping roots can repeat a file
	if len(roots) > 1 {
		seen = map[string]bool{}
	}
	add := func(path, name string) {
		if seen != nil {
			if seen[path] {
				return
			}
			seen[path] = true
		}
		out = append(out, history.Session{Harness: harness, ID: idFromName(name), Path: path})
	}
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		ents, err := readDir(dir)
		if err != nil {
			return err
		}
		prefix := dirPrefix(dir)
		out = slices.Grow(out, len(ents))
		for _, e := range ents {
			switch {
			case e.kind == kindDir && (maxDepth < 0 || depth+1 < maxDepth):
				walk(prefix+e.name, depth+1) // an unreadable directory hides only itself
			case e.kind == kindFile && want(e.name):
				add(prefix+e.name, e.name)
			}
		}
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
				add(root, fi.Name())
			}
		case kindDir:
			if err := walk(root, 0); err != nil {
				errs = append(errs, err) // the root itself must be readable
			}
		}
	}
	return out, errors.Join(errs...)
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
