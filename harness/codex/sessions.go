package codex

import (
	"bytes"
	"encoding/json"
	"io"
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
	// headLimit bounds the bytes read to find session_meta and the first
	// user prompt. session_meta carries the whole system prompt and the
	// first turn repeats AGENTS.md and the environment before the prompt,
	// so this is larger than Pi's.
	headLimit = 512 << 10
	// tailLimit bounds the bytes read from the end to find the last line's
	// time.
	tailLimit = 64 << 10
	// TitleMax bounds a session title, in runes.
	TitleMax = 120
)

// ListSessions finds the Codex rollouts under roots (DefaultRoots when roots
// is nil) and describes each from its session_meta, its first user prompt
// and its last line, newest first. Missing roots are skipped, and so are
// files whose first line is not a session_meta.
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
		err := walkRollouts(root, func(path string) bool {
			if seen[path] {
				return true
			}
			seen[path] = true
			if s, ok := describe(path); ok {
				out = append(out, s)
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// describe reads one rollout's head and tail; ok is false when it is not a
// Codex rollout.
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
	s := history.Session{Harness: history.HarnessCodex, Path: abs, Size: fi.Size(), Updated: fi.ModTime()}
	lr := newLineReader(io.LimitReader(f, headLimit))
	first, terminated, err := lr.next()
	if err != nil || !terminated {
		return history.Session{}, false
	}
	r, err := parseRecord(first, false)
	if err != nil || r.kind != recSessionMeta || r.meta.threadID() == "" {
		return history.Session{}, false
	}
	s.ID, s.Cwd = r.meta.threadID(), r.meta.Cwd
	if s.Started, err = time.Parse(time.RFC3339Nano, r.meta.Timestamp); err != nil {
		s.Started = r.time
	}
	for s.Title == "" {
		line, terminated, err := lr.next()
		if err != nil || !terminated {
			break
		}
		if !bytes.Contains(line, []byte(`"user"`)) {
			continue // cheap filter before a full parse
		}
		if r, err := parseRecord(line, true); err == nil && r.kind == recMessage && r.role == history.RoleUser {
			s.Title = OneLine(r.text, TitleMax)
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
	// The last element is unterminated (possibly torn) or empty; the first
	// may be cut by the tail window. Both are skipped.
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
