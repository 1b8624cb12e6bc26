package pi

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// readBufferSize is the bufio buffer for reading transcript lines. Most Pi
// entries are a few KiB; longer lines (tool output, inline images) are
// assembled in a reusable overflow buffer, so this only sets the read chunk.
const readBufferSize = 64 << 10

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

// lineReader yields the lines of a JSONL file one at a time, reusing its
// buffer, and tells whether each line was terminated by a newline: an
// unterminated final line may be a write still in progress.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int   // 1-based number of the line last returned
	off  int64 // bytes consumed, including the newline of the last line
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBufferSize)}
}

// next returns the next line without its newline (and without a trailing
// carriage return). The slice is valid until the following call. At the end
// of input it returns io.EOF.
func (lr *lineReader) next() (line []byte, terminated bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		switch err {
		case nil:
			lr.off += int64(len(chunk))
			lr.line++
			if len(lr.buf) > 0 {
				lr.buf = append(lr.buf, chunk...)
				chunk = lr.buf
			}
			chunk = chunk[:len(chunk)-1]
			chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
			return chunk, true, nil
		case bufio.ErrBufferFull:
			lr.off += int64(len(chunk))
			lr.buf = append(lr.buf, chunk...)
		case io.EOF:
			lr.off += int64(len(chunk))
			if len(lr.buf) > 0 {
				lr.buf = append(lr.buf, chunk...)
				chunk = lr.buf
			}
			if len(chunk) == 0 {
				return nil, false, io.EOF
			}
			lr.line++
			return chunk, false, nil
		default:
			return nil, false, err
		}
	}
}
