package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/contract"
)

// ext is the extension of a session file, <id>.jsonl.
const ext = ".jsonl"

// maxIDBytes bounds a session id. Ids come from file names, which anyone
// who can write the directory chooses; 128 bytes holds any UUID or
// timestamped id while keeping selectors and window ids short.
const maxIDBytes = 128

// idRule says what validID accepts, for error messages.
const idRule = "an id is 1 to 128 ASCII letters, digits, '-', '_' or '.', not starting with '.'"

// validID reports whether id may name a session. The set is small on
// purpose: an id travels into selectors (jsonl:<id>), window ids and
// terminal output, so it must not hold separators, control characters or
// anything that reads as a path.
func validID(id string) bool {
	if id == "" || len(id) > maxIDBytes || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// idOf returns the session id a file name carries, or false when the name
// is not <id>.jsonl with a valid id.
func idOf(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ext)
	if !ok || !validID(id) {
		return "", false
	}
	return id, true
}

// openSession opens path if it is a session file this harness owns: a
// regular file, not a link, named <id>.jsonl directly inside one of roots
// (absolute and clean). The host passes paths from ListSessions, but a
// plugin answers whoever calls it, so it checks. The opened file must be
// the one checked, so a file swapped for a link in between is refused too.
func openSession(path string, roots []string) (*os.File, os.FileInfo, string, error) {
	refuse := func(reason string) (*os.File, os.FileInfo, string, error) {
		return nil, nil, "", &contract.Refusal{Harness: Name, Path: path, Reason: reason}
	}
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return refuse("not an absolute, clean path")
	}
	if !slices.Contains(roots, filepath.Dir(path)) {
		return refuse("not directly inside the session roots " + strings.Join(roots, ", "))
	}
	id, ok := idOf(filepath.Base(path))
	if !ok {
		return refuse("not a session file: the name must be <id>" + ext + ", where " + idRule)
	}
	before, err := os.Lstat(path)
	if err != nil {
		return nil, nil, "", err
	}
	if !before.Mode().IsRegular() {
		return refuse("not a regular file (links are not followed)")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, "", err
	}
	after, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, "", err
	}
	if !after.Mode().IsRegular() || !os.SameFile(before, after) {
		f.Close()
		return nil, nil, "", &contract.Refusal{Harness: Name, Path: path, Reason: "the file was replaced while it was opened", Retry: true}
	}
	return f, after, id, nil
}
