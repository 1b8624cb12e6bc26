package codex

import (
	"errors"
	"fmt"
	"io"

	"github.com/notesoup/notesoup/harness/jsonl"
)

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
	return fmt.Errorf("codex history: read %s: %w", path, err)
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
