package claude

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one transcript line. Claude Code truncates large tool
// outputs long before this, so a longer line is damage, and refusing it keeps
// a decode's memory bounded by this constant rather than by the file.
const MaxLineBytes = 32 << 20

// readBufferBytes is the read buffer; most lines fit it whole, so they are
// handed out without copying.
const readBufferBytes = 256 << 10

// keepLineBufferBytes is the largest assembled-line buffer kept for reuse.
const keepLineBufferBytes = 4 << 20

// lineReader yields the lines of a transcript with their 1-based numbers,
// reusing one buffer, and remembers how many bytes of complete lines it has
// consumed so a second pass can stop at the same place.
type lineReader struct {
	r        *bufio.Reader
	buf      []byte
	line     int
	consumed int64 // bytes of complete, newline-terminated lines read
	path     string
}

func newLineReader(r io.Reader, path string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBufferBytes), path: path}
}

// next returns the next line without its newline, whether it was
// newline-terminated, and io.EOF at the end. The slice is valid until the
// next call.
func (lr *lineReader) next() ([]byte, bool, error) {
	if cap(lr.buf) > keepLineBufferBytes {
		// A rare huge line should not pin its buffer for the whole decode.
		lr.buf = nil
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if err == nil {
			lr.line++
			lr.consumed += int64(len(lr.buf) + len(chunk))
			if len(lr.buf) == 0 {
				return chunk[:len(chunk)-1], true, nil
			}
			lr.buf = append(lr.buf, chunk[:len(chunk)-1]...)
			return lr.buf, true, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(lr.buf)+len(chunk) > MaxLineBytes {
				return nil, false, fmt.Errorf("%s:%d: line longer than %d bytes; the transcript is damaged (Claude Code never writes lines this long)", lr.path, lr.line+1, MaxLineBytes)
			}
			lr.buf = append(lr.buf, chunk...)
			continue
		}
		if errors.Is(err, io.EOF) {
			lr.buf = append(lr.buf, chunk...)
			if len(lr.buf) == 0 {
				return nil, false, io.EOF
			}
			lr.line++
			return lr.buf, false, nil
		}
		return nil, false, fmt.Errorf("%s: read: %w", lr.path, err)
	}
}

// blank reports whether a line holds only whitespace.
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }
