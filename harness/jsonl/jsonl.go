// Package jsonl reads transcript files line by line, the way every
// harness decoder needs: one reusable buffer, the line number and byte
// offset of each line, whether the line was terminated (an unterminated
// last line may be a write in progress), and a bound on a line's length so
// a corrupt or hostile file cannot make a decoder allocate without limit.
package jsonl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// ReadBufferSize is the bufio read chunk. Most transcript lines are a few
// KiB; longer ones (tool output, inline images) are assembled in the
// reader's reusable overflow buffer.
const ReadBufferSize = 64 << 10

// MaxLineBytes bounds one line. The largest real records are tool outputs
// and inline images of a few MiB; 32 MiB leaves room for those while a 1 GB
// line is refused after reading 32 MiB of it, not after allocating all of it.
const MaxLineBytes = 32 << 20

// LineTooLongError is a line over the reader's bound.
type LineTooLongError struct {
	Line int // 1-based line number
	Max  int // the bound in bytes
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d MiB; a transcript record that large is corrupt or not a transcript", e.Line, e.Max>>20)
}

// Reader yields the lines of a JSONL stream one at a time.
type Reader struct {
	r   *bufio.Reader
	buf []byte
	max int
	// Line is the 1-based number of the line last returned.
	Line int
	// Off is the number of bytes consumed, including the newline of the
	// last line returned.
	Off int64
}

// NewReader returns a reader bounded by MaxLineBytes.
func NewReader(r io.Reader) *Reader { return NewReaderMax(r, MaxLineBytes) }

// NewReaderMax returns a reader whose lines may be at most max bytes.
func NewReaderMax(r io.Reader, max int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, ReadBufferSize), max: max}
}

// Next returns the next line without its newline (and without a trailing
// carriage return), and whether it was terminated by a newline. The slice
// is valid until the following call. At the end of input it returns
// io.EOF; a line over the bound returns a *LineTooLongError.
func (lr *Reader) Next() (line []byte, terminated bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > lr.max+1 { // +1: the newline is not part of the line
			return nil, false, &LineTooLongError{Line: lr.Line + 1, Max: lr.max}
		}
		switch err {
		case nil:
			lr.Off += int64(len(chunk))
			lr.Line++
			if len(lr.buf) > 0 {
				lr.buf = append(lr.buf, chunk...)
				chunk = lr.buf
			}
			chunk = chunk[:len(chunk)-1]
			chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
			return chunk, true, nil
		case bufio.ErrBufferFull:
			lr.Off += int64(len(chunk))
			lr.buf = append(lr.buf, chunk...)
		case io.EOF:
			lr.Off += int64(len(chunk))
			if len(lr.buf) > 0 {
				lr.buf = append(lr.buf, chunk...)
				chunk = lr.buf
			}
			if len(chunk) == 0 {
				return nil, false, io.EOF
			}
			lr.Line++
			return chunk, false, nil
		default:
			return nil, false, err
		}
	}
}
