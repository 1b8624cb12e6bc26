package codex

import (
	"bufio"
	"bytes"
	"io"
)

// readBufferSize is the bufio buffer for reading transcript lines. Most Codex
// lines are a few KiB; longer lines (tool output, inline images) are
// assembled in a reusable overflow buffer, so this only sets the read chunk.
const readBufferSize = 64 << 10

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
