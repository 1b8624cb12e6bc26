package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	// headLimit bounds the bytes read to find the metadata and the first
	// prompt. The CLI's session context (a directory listing of up to 200
	// entries) comes first; the prompt follows it.
	headLimit = 256 << 10
	// TitleMax bounds a session title, in runes.
	TitleMax = 120
	// shortIDLen is the length of the session id's start that ends a main
	// chat's name, session-<time>-<id8>.jsonl.
	shortIDLen = 8
	// maxIDLen bounds an id taken from a file name.
	maxIDLen = 128
	// projectRootBytes bounds the read of a project's .project_root.
	projectRootBytes = 4 << 10
)

// Depths below a root (.gemini/tmp): <project>/chats/<chat> is 2,
// <project>/chats/<parent>/<subagent chat> is 3.
const (
	minFileDepth = 2
	maxFileDepth = 3
)

// SessionFiles lists the chat files under roots whose names may hold an
// id starting with idPrefix, without reading them: session-*.jsonl (and
// the older session-*.json) in a project's chats/, and a subagent's
// <id>.jsonl in a folder of chats/. Each one's ID is the one its name
// holds: the first 8 characters of the session id for a main chat (a
// prefix of the id its description gives), the whole id for a subagent's.
// It returns what it found with the error of any root it could not read.
func SessionFiles(roots []string, idPrefix string) ([]history.Session, error) {
	narrow := idPrefix
	if len(narrow) > shortIDLen {
		narrow = narrow[:shortIDLen] // a main chat's name holds no more of it
	}
	ss, err := walk.Files(roots, walk.Spec{
		Harness:  Name,
		MinDepth: minFileDepth,
		MaxDepth: maxFileDepth,
		Keep: func(name string) bool {
			return fileID(name) != "" && harness.NameMayHold(name, narrow)
		},
		ID: fileID,
	})
	// The walk keeps files by name and depth; a chat is also in chats/
	// (main) or in a folder of chats/ (a subagent's).
	kept := ss[:0]
	for _, s := range ss {
		if chatsDir(s.Path) != "" && (strings.HasPrefix(filepath.Base(s.Path), "session-") == (filepath.Base(filepath.Dir(s.Path)) == "chats")) {
			kept = append(kept, s)
		}
	}
	if err != nil {
		err = fmt.Errorf("%s sessions: %w", Name, err)
	}
	return kept, err
}

// fileID is the id a chat file's name holds, or "" when the name is not a
// chat's: session-<time>-<id8>.jsonl|.json, or <id>.jsonl of a subagent.
// Ids keep to letters, digits, '-', '_' and '.'; they travel into
// selectors and window ids.
func fileID(name string) string {
	if rest, ok := strings.CutPrefix(name, "session-"); ok {
		for _, ext := range []string{".jsonl", ".json"} {
			if base, ok := strings.CutSuffix(rest, ext); ok && len(base) > shortIDLen {
				return safeID(base[len(base)-shortIDLen:])
			}
		}
		return ""
	}
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return ""
	}
	return safeID(base)
}

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

// chatsDir returns the chats/ folder a chat file is in (directly, or in a
// subagent folder below it), or "".
func chatsDir(path string) string {
	d := filepath.Dir(path)
	for i := 0; i < 2; i++ {
		if filepath.Base(d) == "chats" {
			return d
		}
		d = filepath.Dir(d)
	}
	return ""
}

// Describe describes one chat file (harness.Describer); ok is false when
// it is not a Gemini CLI chat.
func Describe(path string) (history.Session, bool, error) {
	s, ok := describe(path)
	return s, ok, nil
}

// describe reads one chat's head and tail.
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
	head := make([]byte, min(fi.Size(), headLimit))
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return history.Session{}, false
	}
	head = head[:n]
	var sessionID, started string
	if strings.HasSuffix(path, ".json") {
		sessionID, started, s.Title = describeLegacy(f, fi.Size())
	} else {
		sessionID, started, s.Title = describeHead(head)
	}
	if sessionID == "" {
		return history.Session{}, false
	}
	s.ID = fileID(filepath.Base(path))
	// The whole id when the name holds its start (a main chat) or all of
	// it (a subagent's), and it is fit for a selector.
	if full := safeID(sessionID); full != "" && s.ID != "" && strings.HasPrefix(full, s.ID) {
		s.ID = full
	}
	if s.ID == "" {
		return history.Session{}, false
	}
	s.Started = parseTime(started)
	if t, ok := lastTime(f, fi.Size()); ok {
		s.Updated = t
	}
	if s.Started.IsZero() || s.Started.After(s.Updated) {
		s.Started = s.Updated
	}
	s.Cwd = projectDir(path)
	return s, true
}

// describeHead reads the metadata and the first prompt from a JSONL head.
// The first metadata line's startTime is the chat's start: a resumed chat
// writes its metadata again with the resume's time.
func describeHead(head []byte) (sessionID, started, title string) {
	lines := bytes.Split(head, []byte{'\n'})
	for i, b := range lines {
		if i == len(lines)-1 && len(head) == headLimit {
			break // cut by the head's bound
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		l, err := parseLine(b)
		if err != nil {
			if sessionID == "" {
				return "", "", ""
			}
			continue
		}
		if sessionID == "" {
			if l.kind != recMetadata {
				return "", "", ""
			}
			sessionID, started = l.sessionID, l.startTime
		}
		if t := firstPrompt(l); t != "" {
			return sessionID, started, harness.OneLine(t, TitleMax)
		}
	}
	return sessionID, started, ""
}

// firstPrompt is the user's words in a line: a user message with text that
// is not the CLI's own context.
func firstPrompt(l line) string {
	msgs := l.messages
	if l.msg != nil {
		msgs = []message{*l.msg}
	}
	for _, m := range msgs {
		if m.Type != "user" {
			continue
		}
		if t, _ := visibleText(m.Content); strings.TrimSpace(t) != "" && !isContext(t) {
			return t
		}
	}
	return ""
}

// describeLegacy reads a whole-file JSON chat (bounded like the decoder).
func describeLegacy(f *os.File, size int64) (sessionID, started, title string) {
	if size > maxLegacyBytes {
		return "", "", ""
	}
	data := make([]byte, size)
	n, err := f.ReadAt(data, 0)
	if err != nil && err != io.EOF {
		return "", "", ""
	}
	l, err := parseLine(data[:n])
	if err != nil || l.kind != recMetadata {
		return "", "", ""
	}
	return l.sessionID, l.startTime, harness.OneLine(firstPrompt(l), TitleMax)
}

// lastTime is the chat's last time: the lastUpdated or timestamp of the
// last complete line within harness.TailBytes of the end that has one.
func lastTime(f *os.File, size int64) (time.Time, bool) {
	start := max(size-harness.TailBytes, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return time.Time{}, false
	}
	lines := bytes.Split(buf, []byte{'\n'})
	// The last element is unterminated (possibly torn) or empty; the first
	// may be cut by the tail window.
	for i := len(lines) - 2; i >= 0; i-- {
		if i == 0 && start > 0 {
			break
		}
		var v struct {
			Set struct {
				LastUpdated string `json:"lastUpdated"`
			} `json:"$set"`
			LastUpdated string `json:"lastUpdated"`
			Timestamp   string `json:"timestamp"`
		}
		if json.Unmarshal(lines[i], &v) != nil {
			continue
		}
		for _, s := range []string{v.Set.LastUpdated, v.LastUpdated, v.Timestamp} {
			if t := parseTime(s); !t.IsZero() {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// projectDir is the directory a chat's project is: the .project_root the
// CLI keeps in the project's folder, beside chats/ (its project registry
// writes it with ~/.gemini/projects.json, which maps the same directory to
// the folder but lies outside the roots). "" when there is none: a chat's
// metadata holds only a hash of the directory.
func projectDir(path string) string {
	chats := chatsDir(path)
	if chats == "" {
		return ""
	}
	b, err := readSmall(filepath.Join(filepath.Dir(chats), ".project_root"), projectRootBytes)
	if err != nil {
		return ""
	}
	if d := strings.TrimSpace(string(b)); filepath.IsAbs(d) && !strings.ContainsAny(d, "\n\x00") {
		return d
	}
	return ""
}

// readSmall reads up to limit bytes of a regular file, no link followed.
func readSmall(path string, limit int64) ([]byte, error) {
	f, fi, err := rawread.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// skipNotice says on stderr why a chat file is left out of a listing; a
// file deleted since the walk (the CLI deletes old chats) is no news.
func skipNotice(path string, err error) {
	if !errors.Is(err, fs.ErrNotExist) {
		walk.Notice(Name, "chat file left out of the listing", "path", path, "error", err)
	}
}
