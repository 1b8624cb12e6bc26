package pi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/notesoup/notesoup/shared/history"
)

// Listing reads only the start and the end of each file, never the whole.
const (
	// headLimit bounds the bytes read to find the header and the first user
	// prompt; pi's first prompt follows two short setup entries (pi.md §3.2),
	// and an inline image before it may push it out, leaving no title.
	headLimit = 256 << 10
	// tailLimit bounds the bytes read from the end to find the last entry's
	// time; one entry is usually far smaller.
	tailLimit = 64 << 10
	// TitleMax bounds a session title, in runes.
	TitleMax = 120
	// maxRootDepth: sessions are <root>/<encoded-cwd>/<file>.jsonl, or flat
	// in an override dir (pi.md §2).
	maxRootDepth = 2
)

// ListSessions finds the Pi session files under roots (DefaultRoots when
// roots is nil) and describes each from its header, its first user prompt
// and its last entry, newest first. Roots that do not exist are skipped, and
// so are .jsonl files without a valid Pi header (pi itself ignores them).
func ListSessions(roots []string) ([]history.Session, error) {
	if roots == nil {
		var err error
		if roots, err = DefaultRoots(); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	var out []history.Session
	for _, root := range roots {
		root = filepath.Clean(root)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == root && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				if d != nil && d.IsDir() && path != root {
					return fs.SkipDir // an unreadable subdirectory hides only itself
				}
				return err
			}
			depth := strings.Count(strings.TrimPrefix(path, root), string(filepath.Separator))
			if d.IsDir() {
				if depth >= maxRootDepth {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(path, ".jsonl") || seen[path] {
				return nil
			}
			seen[path] = true
			if s, ok := describe(path); ok {
				out = append(out, s)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("pi sessions: walk %s: %w", root, err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// describe reads one file's head and tail. ok is false when it is not a Pi
// session file.
func describe(path string) (history.Session, bool) {
	f, err := os.Open(path)
	if err != nil {
		return history.Session{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return history.Session{}, false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	s := history.Session{Harness: history.HarnessPi, Path: abs, Size: fi.Size(), Updated: fi.ModTime()}
	lr := newLineReader(io.LimitReader(f, headLimit))
	first, terminated, err := lr.next()
	if err != nil || !terminated {
		return history.Session{}, false
	}
	id, version, h, err := parseHeader(first)
	if err != nil {
		return history.Session{}, false
	}
	s.ID, s.Cwd = id, h.Cwd
	s.Started, _ = time.Parse(time.RFC3339Nano, h.Timestamp)
	for s.Title == "" {
		line, terminated, err := lr.next()
		if err != nil || !terminated {
			break
		}
		if !bytes.Contains(line, []byte(`"user"`)) && !bytes.Contains(line, []byte(`"hookMessage"`)) {
			continue // cheap filter before a full parse
		}
		if e, err := parseEntry(line, version, true); err == nil && e.kind == kindUser {
			s.Title = OneLine(e.text, TitleMax)
		}
	}
	if t, ok := lastTime(f, fi.Size()); ok {
		s.Updated = t
	}
	if s.Started.IsZero() {
		s.Started = s.Updated
	}
	return s, true
}

// lastTime returns the timestamp of the last complete line that has one,
// reading at most tailLimit bytes from the end.
func lastTime(f *os.File, size int64) (time.Time, bool) {
	start := size - tailLimit
	if start < 0 {
		start = 0
	}
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return time.Time{}, false
	}
	lines := bytes.Split(buf, []byte{'\n'})
	// The last element is an unterminated (possibly torn) line or empty; the
	// first may be cut by the tail window. Both are skipped.
	for i := len(lines) - 2; i >= 0; i-- {
		if i == 0 && start > 0 {
			break
		}
		var t struct {
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(lines[i], &t) != nil || t.Timestamp == "" {
			continue
		}
		if ts, err := time.Parse(time.RFC3339Nano, t.Timestamp); err == nil {
			return ts, true
		}
	}
	return time.Time{}, false
}

// OneLine collapses whitespace (newlines included) to single spaces and
// bounds s to max runes, marking a cut with "…".
func OneLine(s string, max int) string {
	var b strings.Builder
	space, n := false, 0
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			if n+1 >= max {
				b.WriteString("…")
				return b.String()
			}
			b.WriteByte(' ')
			n++
		}
		if n >= max {
			b.WriteString("…")
			return b.String()
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return b.String()
}
