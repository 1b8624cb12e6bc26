package dream

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Bounds on what one scope's snapshot holds. The notes store refuses a
// scope past 1000 notes or 4 MiB (shared/notes); a person may keep other
// files beside the notes (drafts, a README), so the snapshot allows more,
// and refuses past these rather than read a folder some other tool filled.
const (
	maxEntries   = 5000     // files, folders and links per scope
	maxFileBytes = 4 << 20  // one file
	maxScopeSize = 32 << 20 // all files of a scope together
)

// Entry is one thing in a notes folder, as a snapshot keeps it.
type Entry struct {
	// Path is slash-separated, relative to the scope folder.
	Path string `json:"path"`
	// Kind is "file", "dir" or "link".
	Kind string `json:"kind"`
	// Mode is the permission bits.
	Mode fs.FileMode `json:"mode,omitempty"`
	// Data is a file's bytes.
	Data []byte `json:"data,omitempty"`
	// Link is a symbolic link's target, as written.
	Link string `json:"link,omitempty"`
}

// Entry kinds.
const (
	kindFile = "file"
	kindDir  = "dir"
	kindLink = "link"
)

// sum is what proves an entry unchanged without keeping its bytes.
func (e Entry) sum() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%o\x00%s\x00", e.Kind, e.Mode.Perm(), e.Link)
	h.Write(e.Data)
	return hex.EncodeToString(h.Sum(nil))
}

// skip reports whether a folder entry is left out of a snapshot: names
// starting with a dot are not notes (the scope's .lock, the dream lock,
// temporary files of an interrupted write, a .git folder), and the notes
// store never lists them either.
func skip(name string) bool { return strings.HasPrefix(name, ".") }

// readScope reads every entry under dir (a scope folder, links in its own
// path already resolved), sorted by path. A missing folder has no entries.
// Anything but files, folders and links (a FIFO, a socket) is refused: it
// cannot be restored as it was.
func readScope(dir string) ([]Entry, error) {
	var out []Entry
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return fmt.Errorf("read notes folder %s: %w", path, err)
		}
		if path == dir {
			return nil
		}
		if skip(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if len(out) >= maxEntries {
			return fmt.Errorf("notes folder %s holds more than %d files and folders; a dream pass snapshots at most that many: move what is not notes out of it", dir, maxEntries)
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		e := Entry{Path: filepath.ToSlash(rel)}
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("read notes folder entry %s: %w", path, err)
		}
		e.Mode = fi.Mode().Perm()
		switch {
		case d.IsDir():
			e.Kind = kindDir
		case d.Type()&fs.ModeSymlink != 0:
			e.Kind = kindLink
			if e.Link, err = os.Readlink(path); err != nil {
				return fmt.Errorf("read link %s: %w", path, err)
			}
			e.Mode = 0
		case d.Type().IsRegular():
			e.Kind = kindFile
			if e.Data, err = readFile(path); err != nil {
				return err
			}
			if total += int64(len(e.Data)); total > maxScopeSize {
				return fmt.Errorf("notes folder %s holds more than %d MiB; a dream pass snapshots at most that: move what is not notes out of it", dir, maxScopeSize>>20)
			}
		default:
			return fmt.Errorf("notes folder entry %s is a %s, which a dream pass cannot snapshot and restore; remove it", path, fi.Mode().Type())
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// readFile reads one regular file, bounded: not through a link planted
// since the walk (O_NOFOLLOW), not blocking on a FIFO (O_NONBLOCK), and
// refusing one past maxFileBytes.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s is over %d MiB; a dream pass snapshots no larger file: move it out of the notes folder", path, maxFileBytes>>20)
	}
	return data, nil
}

// sums maps each entry's path to its sum.
func sums(es []Entry) map[string]string {
	m := make(map[string]string, len(es))
	for _, e := range es {
		m[e.Path] = e.sum()
	}
	return m
}

// diff lists the paths whose entries differ between two sum maps, sorted.
func diff(a, b map[string]string) []string {
	var out []string
	for p, s := range a {
		if b[p] != s {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
