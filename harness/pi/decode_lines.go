package pi

import (
	"errors"
	"fmt"
	"io"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/shared/history"
)

// refusal is the decoder's one error: a transcript it cannot decode
// faithfully (a malformed committed line, an invalid known schema, a
// conflicting duplicate, a cycle). It names the file and the 1-based line (0
// for the whole file); retry is true when the refusal is about a write in
// progress (an empty file, a torn header, a head not yet on disk, a file
// rewritten under the reader), which the same call may not meet a moment
// later.
func refusal(path string, line int, retry bool, reason string) *history.Refusal {
	return &history.Refusal{Harness: Name, Path: path, Line: line, Reason: reason, Retry: retry}
}

// newLineReader reads the transcript's lines (shared/jsonl: one reusable
// buffer, line numbers and offsets, a bound on a line's length).
func newLineReader(r io.Reader) *jsonl.Reader { return jsonl.NewReader(r) }

// readErr reports a failure to read path: a line over the bound is a
// refusal naming the file and line, anything else an I/O error.
func readErr(path string, err error) error {
	var long *jsonl.LineTooLongError
	if errors.As(err, &long) {
		return refusal(path, long.Line, false, long.Error())
	}
	return fmt.Errorf("pi history: read %s: %w", path, err)
}

// tooLong reports whether err is a line over the bound. It is called on
// every line read, so it allocates only for an error: the target errors.As
// needs escapes to the heap.
func tooLong(err error) (*jsonl.LineTooLongError, bool) {
	if err == nil {
		return nil, false
	}
	var long *jsonl.LineTooLongError
	return long, errors.As(err, &long)
}
