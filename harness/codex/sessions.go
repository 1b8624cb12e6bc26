package codex

import (
	"bytes"
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
	// headLimit bounds the bytes read to find session_meta and the first
	// user prompt. session_meta carries the whole system prompt and the
	// first turn repeats AGENTS.md and the environment before the prompt,
	// so this is larger than Pi's.
	headLimit = 512 << 10
	// TitleMax bounds a session title, in runes.
	TitleMax = 120
	// threadIDLen is the length of a thread id, a textual UUID: the end
	// of a rollout's name (see rolloutSuffixLen).
	threadIDLen = 36
)

// SessionFiles lists the rollouts (rollout-*.jsonl at any depth: the date
// directories of sessions/, the flat archived_sessions/) under roots whose
// names may hold an id starting with idPrefix, without reading them: each
// one's Harness, ID (the thread id that ends its name) and Path. It returns
// what it found with the error of any root it could not read.
func SessionFiles(roots []string, idPrefix string) ([]history.Session, error) {
	ss, err := walk.Files(roots, walk.Spec{
		Harness:  Name,
		MaxDepth: -1,
		Keep: func(name string) bool {
			return strings.HasPrefix(name, "rollout-") && strings.HasSuffix(name, ".jsonl") && harness.NameMayHold(name, idPrefix)
		},
		ID: func(name string) string { return walk.TrailingID(name, ".jsonl", threadIDLen) },
	})
	if err != nil {
		err = fmt.Errorf("%s sessions: %w", Name, err)
	}
	return ss, err
}

// Describe describes one rollout (harness.Describer); ok is false when its
// first line is not a session_meta.
func Describe(path string) (history.Session, bool, error) {
	s, ok := describe(path)
	return s, ok, nil
}

// describe reads one rollout's head and tail; ok is false when it is not a
// Codex rollout.
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
	r, err := parseRecord(first, false)
	if err != nil || r.kind != recSessionMeta || r.meta.threadID() == "" {
		return history.Session{}, false
	}
	s.ID, s.Cwd = r.meta.threadID(), r.meta.Cwd
	if s.Started, err = time.Parse(time.RFC3339Nano, r.meta.Timestamp); err != nil {
		s.Started = r.time
	}
	for s.Title == "" {
		line, terminated, err := lr.Next()
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
