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

// ClaudeFiles lists <root>/<project>/<session id>.jsonl under each root
// (subagent transcripts live one level deeper and are not sessions).
func ClaudeFiles(roots []string) ([]history.Session, error) {
	var out []history.Session
	var errs []error
	for _, root := range roots {
		projects, err := os.ReadDir(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, p := range projects {
			if !p.IsDir() {
				continue
			}
			dir := filepath.Join(root, p.Name())
			files, err := os.ReadDir(dir)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			for _, f := range files {
				name := f.Name()
				if f.Type().IsRegular() && strings.HasSuffix(name, ".jsonl") {
					out = append(out, history.Session{Harness: history.HarnessClaude, ID: strings.TrimSuffix(name, ".jsonl"), Path: filepath.Join(dir, name)})
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

func walkFiles(roots []string, maxDepth int, harness string, want func(string) bool) ([]history.Session, error) {
	var out []history.Session
	var errs []error
	seen := map[string]bool{}
	for _, root := range roots {
		root = filepath.Clean(root)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == root && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				if d != nil && d.IsDir() && path != root {
					return fs.SkipDir // an unreadable directory hides only itself
				}
				return err
			}
			if d.IsDir() {
				if maxDepth >= 0 && path != root && strings.Count(strings.TrimPrefix(path, root), string(filepath.Separator)) >= maxDepth {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !want(d.Name()) || seen[path] {
				return nil
			}
			seen[path] = true
			out = append(out, history.Session{Harness: harness, ID: idFromName(d.Name()), Path: path})
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// idFromName takes the UUID at the end of a Pi or Codex file name.
func idFromName(name string) string {
	base := strings.TrimSuffix(name, ".jsonl")
	if len(base) >= uuidLen {
		return base[len(base)-uuidLen:]
	}
	return base
}
