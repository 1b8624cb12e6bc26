package copilot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/walk"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/history"
)

// Listing reads only the start and the end of each file, never the whole.
const (
	// eventsFile is a session's event log in its folder.
	eventsFile = "events.jsonl"
	// workspaceFile is the session's summary beside it.
	workspaceFile = "workspace.yaml"
	// headLimit bounds the bytes read to find session.start and the first
	// prompt; the system prompt (~20 KiB) may come before the prompt.
	headLimit = 256 << 10
	// workspaceLimit bounds the read of workspace.yaml (a dozen short
	// keys, a few hundred bytes in practice).
	workspaceLimit = 64 << 10
	// TitleMax bounds a session title, in runes.
	TitleMax = 120
	// maxIDLen bounds an id taken from a folder name.
	maxIDLen = 128
)

// SessionFiles lists the sessions under roots whose ids start with
// idPrefix, without reading them: <root>/<id>/events.jsonl, each one's ID
// its folder's name. It returns what it found with the error of any root it
// could not read.
func SessionFiles(roots []string, idPrefix string) ([]history.Session, error) {
	ss, err := walk.Files(roots, walk.Spec{
		Harness:  Name,
		MinDepth: 1,
		MaxDepth: 1,
		Keep:     func(name string) bool { return name == eventsFile },
		// The id is the folder's name, not the file's: set below.
		ID: func(string) string { return "" },
	})
	kept := ss[:0]
	for _, s := range ss {
		id := safeID(filepath.Base(filepath.Dir(s.Path)))
		if id == "" || !strings.HasPrefix(id, idPrefix) {
			continue
		}
		s.ID = id
		kept = append(kept, s)
	}
	if err != nil {
		err = fmt.Errorf("%s sessions: %w", Name, err)
	}
	return kept, err
}

// safeID returns id when it may be a session id: letters, digits, '-',
// '_' and '.', not starting with '.', bounded. Ids travel into selectors
// and window ids. The CLI's are UUIDs.
func safeID(id string) string {
	if id == "" || len(id) > maxIDLen || strings.HasPrefix(id, ".") {
		return ""
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return ""
		}
	}
	return id
}

// Describe describes one session's events.jsonl (harness.Describer); ok is
// false when it is not a Copilot CLI session.
func Describe(path string) (history.Session, bool, error) {
	s, ok := describe(path)
	return s, ok, nil
}

// describe reads the session's head and tail and its workspace.yaml.
func describe(path string) (history.Session, bool) {
	if filepath.Base(path) != eventsFile {
		return history.Session{}, false
	}
	id := safeID(filepath.Base(filepath.Dir(path)))
	if id == "" {
		return history.Session{}, false
	}
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
	s := history.Session{Harness: Name, ID: id, Path: abs, Size: fi.Size(), Updated: fi.ModTime()}
	head := make([]byte, min(fi.Size(), headLimit))
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return history.Session{}, false
	}
	h, ok := describeHead(head[:n], int64(n) == headLimit)
	if !ok {
		return history.Session{}, false
	}
	s.Cwd, s.Title, s.Started = h.cwd, h.prompt, parseTime(h.started)
	if ws, err := readWorkspace(filepath.Join(filepath.Dir(path), workspaceFile)); err == nil {
		if ws.Cwd != "" && filepath.IsAbs(ws.Cwd) {
			s.Cwd = ws.Cwd
		}
		if strings.TrimSpace(ws.Name) != "" {
			s.Title = ws.Name
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		walk.Notice(Name, "workspace.yaml not read; the session's title and folder come from its events", "path", path, "error", err)
	}
	s.Title = harness.OneLine(s.Title, TitleMax)
	if t, ok := harness.LastTimestamp(f, fi.Size()); ok {
		s.Updated = t
	}
	if s.Started.IsZero() || s.Started.After(s.Updated) {
		s.Started = s.Updated
	}
	return s, true
}

// head is what a session's first events say about it.
type head struct {
	started, cwd, prompt string
}

// describeHead reads session.start and the first prompt from the head of
// an events.jsonl. The first complete line must be a Copilot CLI event;
// cut says the head was cut by its bound, so its last line may be partial.
func describeHead(b []byte, cut bool) (head, bool) {
	var h head
	lines := bytes.Split(b, []byte{'\n'})
	first := true
	for i, l := range lines {
		if i == len(lines)-1 && (cut || len(l) > 0) {
			break // cut by the bound, or a write in progress
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		r, err := parseRecord(l)
		if err != nil {
			if first {
				return head{}, false
			}
			continue
		}
		first = false
		if h.started == "" {
			h.started = r.Timestamp
		}
		switch r.Type {
		case evStart:
			var d startData
			if r.data(&d) == nil {
				if d.StartTime != "" {
					h.started = d.StartTime
				}
				h.cwd = d.Context.Cwd
			}
		case evUser:
			var d userData
			if r.AgentID == "" && r.data(&d) == nil && strings.TrimSpace(d.Content) != "" {
				h.prompt = d.Content
				return h, true
			}
		}
	}
	return h, !first
}

// workspace is the part of workspace.yaml a listing shows.
type workspace struct {
	ID   string `yaml:"id"`
	Cwd  string `yaml:"cwd"`
	Name string `yaml:"name"`
}

// readWorkspace reads a session's workspace.yaml: a regular file (no link
// followed), bounded.
func readWorkspace(path string) (workspace, error) {
	f, fi, err := rawread.Open(path)
	if err != nil {
		return workspace{}, err
	}
	defer f.Close()
	if fi.Size() > workspaceLimit {
		return workspace{}, fmt.Errorf("%s is larger than %d bytes", path, workspaceLimit)
	}
	b, err := io.ReadAll(io.LimitReader(f, workspaceLimit))
	if err != nil {
		return workspace{}, err
	}
	var ws workspace
	if err := yaml.Unmarshal(b, &ws); err != nil {
		return workspace{}, fmt.Errorf("%s: %v", path, err)
	}
	return ws, nil
}

// skipNotice says on stderr why a session is left out of a listing; a
// session deleted since the walk is no news.
func skipNotice(path string, err error) {
	if !errors.Is(err, fs.ErrNotExist) {
		walk.Notice(Name, "session file left out of the listing", "path", path, "error", err)
	}
}
