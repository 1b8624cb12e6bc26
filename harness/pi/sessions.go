package pi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/walk"
	"github.com/notesoup/notesoup/internal/rawread"

	"github.com/notesoup/notesoup/shared/history"
)

// Listing reads only the start and the end of each file, never the whole.
const (
	// headLimit bounds the bytes read to find the header and the first user
	// prompt; pi's first prompt follows two short setup entries (pi.md §3.2),
	// and an inline image before it may push it out, leaving no title.
	headLimit = 256 << 10
	// TitleMax bounds a session title, in runes.
	TitleMax = 120
	// maxFileDepth: sessions are <root>/<encoded-cwd>/<file>.jsonl, or
	// flat in an override dir (pi.md §2), so a file is at most one
	// directory below a root.
	maxFileDepth = 1
	// idLen is the length of a session id, a textual UUID: the end of a
	// session file's name, <time>_<id>.jsonl.
	idLen = 36
)

// SessionFiles lists the .jsonl files under roots whose names may hold an
// id starting with idPrefix, without reading them: each one's Harness, ID
// (the UUID that ends its name) and Path. It returns what it found with
// the error of any root it could not read.
func SessionFiles(roots []string, idPrefix string) ([]history.Session, error) {
	ss, err := walk.Files(roots, walk.Spec{
		Harness:  Name,
		MaxDepth: maxFileDepth,
		Keep: func(name string) bool {
			return strings.HasSuffix(name, ".jsonl") && harness.NameMayHold(name, idPrefix)
		},
		ID: func(name string) string { return walk.TrailingID(name, ".jsonl", idLen) },
	})
	if err != nil {
		err = fmt.Errorf("%s sessions: %w", Name, err)
	}
	return ss, err
}

// Describe describes one session file (harness.Describer); ok is false when
// it is not a Pi session file.
func Describe(path string) (history.Session, bool, error) {
	s, ok := describe(path)
	return s, ok, nil
}

// describe reads one file's head and tail. ok is false when it is not a Pi
// session file.
func describe(path string) (history.Session, bool) {
	f, fi, err := rawread.Open(path)
	if err != nil {
		skipNotice(path, err)
		return history.Session{}, false
	}
	defer f.Close()
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	s := history.Session{Harness: Name, Path: abs, Size: fi.Size(), Updated: fi.ModTime()}
	lr := newLineReader(io.LimitReader(f, headLimit))
	first, terminated, err := lr.Next()
	if err != nil || !terminated {
		return history.Session{}, false
	}
	id, version, h, err := parseHeader(first)
	if err != nil {
		return history.Session{}, false
	}
	s.ID, s.Cwd = id, h.Cwd
	s.Started, _ = time.Parse(time.RFC3339Nano, h.Timestamp)
	// The whole head is read for session names (a name set early); the
	// first user prompt is the title when the session has none.
	var name sessionName
	for {
		line, terminated, err := lr.Next()
		if err != nil || !terminated {
			break
		}
		name.note(line)
		if s.Title != "" || !bytes.Contains(line, []byte(`"user"`)) && !bytes.Contains(line, []byte(`"hookMessage"`)) {
			continue // cheap filter before a full parse
		}
		if e, err := parseEntry(line, version, true); err == nil && e.kind == kindUser {
			s.Title = OneLine(e.text, TitleMax)
		}
	}
	if fi.Size() > headLimit {
		name.tail(f, fi.Size())
	}
	if name.set && name.name != "" {
		s.Title = OneLine(name.name, TitleMax)
	}
	if t, ok := harness.LastTimestamp(f, fi.Size()); ok {
		s.Updated = t
	}
	if s.Started.IsZero() {
		s.Started = s.Updated
	}
	return s, true
}

// OneLine is harness.OneLine, kept for this package's callers.
func OneLine(s string, max int) string { return harness.OneLine(s, max) }

// skipNotice says on stderr why a session file is left out of a listing
// (unreadable, or no longer a regular file): the others are still listed,
// and the person can see why one is missing. A file deleted since the walk
// is no news.
func skipNotice(path string, err error) {
	if !errors.Is(err, fs.ErrNotExist) {
		walk.Notice(Name, "session file left out of the listing", "path", path, "error", err)
	}
}

// sessionName is the name a person gave the session (/name): the latest
// session_info entry's, as pi's own listing shows it; an empty name clears
// it, and the first prompt is the title again. A listing reads the head and
// the last harness.TailBytes of a file, so a name set in the middle of a
// long session, and changed in no later entry, is not seen.
type sessionName struct {
	name string
	set  bool
}

// sessionInfoProbe is the cheap byte test before a line is parsed. Pi
// writes every entry with its type first (session-manager.js builds each
// as a literal starting with type, and JSON.stringify keeps that order),
// so only a line's first probeWindow bytes are searched: the head of a
// listing holds whole tool outputs, and searching all of every line cost
// a seventh of a cold listing.
var sessionInfoProbe = []byte(`"session_info"`)

const probeWindow = 64

// note takes the name of a session_info line.
func (n *sessionName) note(line []byte) {
	if !bytes.Contains(line[:min(len(line), probeWindow)], sessionInfoProbe) {
		return
	}
	var e struct {
		Type string  `json:"type"`
		Name *string `json:"name"`
	}
	if json.Unmarshal(line, &e) != nil || e.Type != "session_info" {
		return
	}
	n.set, n.name = true, ""
	if e.Name != nil {
		n.name = strings.TrimSpace(*e.Name)
	}
}

// tail notes the session_info lines among the complete lines of the last
// harness.TailBytes of f (size bytes long): later than any in the head.
func (n *sessionName) tail(f io.ReaderAt, size int64) {
	start := max(size-harness.TailBytes, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return
	}
	lines := bytes.Split(buf, []byte{'\n'})
	// The first may be cut by the window, the last is unterminated.
	for i := 1; i < len(lines)-1; i++ {
		n.note(lines[i])
	}
}
