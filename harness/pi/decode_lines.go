package pi

import (
	"errors"
	"fmt"
	"io"

	"github.com/notesoup/notesoup/harness/jsonl"
)

// RefusalError is returned when a transcript cannot be decoded faithfully: a
// malformed committed line, an invalid known schema, a conflicting duplicate,
// a cycle. It names the file and line so the user can look at the record.
type RefusalError struct {
	Path   string // transcript file
	Line   int    // 1-based line, 0 when the refusal concerns the whole file
	Reason string // what is wrong and, where there is one, the fix
	// Retry is true when the refusal is about a write in progress (an
	// empty file, a torn header, a head not yet on disk, a file rewritten
	// under the reader): the same call may succeed a moment later.
	Retry bool
}

// Error renders "path:line: reason".
func (e *RefusalError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("pi history: %s:%d: %s", e.Path, e.Line, e.Reason)
	}
	return fmt.Sprintf("pi history: %s: %s", e.Path, e.Reason)
}

// newLineReader reads the transcript's lines (shared/jsonl: one reusable
// buffer, line numbers and offsets, a bound on a line's length).
func newLineReader(r io.Reader) *jsonl.Reader { return jsonl.NewReader(r) }

// readErr reports a failure to read path: a line over the bound is a
// refusal naming the file and line, anything else an I/O error.
func readErr(path string, err error) error {
	var long *jsonl.LineTooLongError
	if errors.As(err, &long) {
		return &RefusalError{Path: path, Line: long.Line, Reason: long.Error()}
	}
	return fmt.Errorf("pi history: read %s: %w", path, err)
}

// Retryable reports a refusal about a write in progress, which the same
// call may not meet a moment later (history.ErrRetry through the plugin).
func (e *RefusalError) Retryable() bool { return e.Retry }
