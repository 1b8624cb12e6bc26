package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/notesoup/notesoup/shared/history"
)

// TailBytes is how much of a transcript's end session listings read for its
// last timestamp: enough for several records, small enough that listing
// thousands of sessions reads kilobytes per file, not the files.
const TailBytes = 64 << 10

// LastTimestamp returns the RFC 3339 "timestamp" of the last complete JSONL
// line that has one, reading at most TailBytes from the end of f (size
// bytes long). A torn last line (a write in progress) is skipped.
func LastTimestamp(f *os.File, size int64) (time.Time, bool) {
	start := size - TailBytes
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

// NameMayHold reports whether a session file named name may hold a session
// whose id starts with idPrefix: every harness names a session's file for
// its id (Claude <id>.jsonl, Pi <time>_<id>.jsonl, Codex
// rollout-<time>-<id>.jsonl), so a file whose name does not contain the
// prefix is not described when one session is looked for. An empty prefix
// keeps every file.
func NameMayHold(name, idPrefix string) bool {
	return idPrefix == "" || strings.Contains(name, idPrefix)
}

// OneLine makes a session title of s (history.Title): secrets masked
// before anything is cut, whitespace (newlines included) collapsed to
// single spaces, at most max runes, a cut marked with "…".
func OneLine(s string, max int) string { return history.Title(s, max) }
