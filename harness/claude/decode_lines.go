package claude

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/notesoup/notesoup/harness/jsonl"
)

// MaxLineBytes bounds one transcript line. Claude Code truncates large tool
// outputs long before this, so a longer line is damage, and refusing it keeps
// a decode's memory bounded by this constant rather than by the file.
const MaxLineBytes = jsonl.MaxLineBytes

// lineReader yields the lines of a transcript with their 1-based numbers and
// remembers how many bytes of complete lines it has consumed so a second
// pass can stop at the same place. It reads through a jsonl.File, so both
// passes over a transcript of ordinary size share one read into a pooled
// buffer.
type lineReader struct {
	r        *jsonl.Reader
	line     int
	consumed int64 // bytes of complete, newline-terminated lines read
	path     string
}

func newLineReader(f *jsonl.File, limit int64, path string) *lineReader {
	return &lineReader{r: f.Lines(limit), path: path}
}

// next returns the next line without its newline, whether it was
// newline-terminated, and io.EOF at the end. The slice is valid until the
// next call.
func (lr *lineReader) next() ([]byte, bool, error) {
	off := lr.r.Off
	line, terminated, err := lr.r.Next()
	var long *jsonl.LineTooLongError
	switch {
	case errors.As(err, &long):
		// Claude Code never writes a line this long: one that is damage
		// is skipped (errSkipped), the rest of the transcript read.
		lr.line = long.Line
		if long.Terminated {
			lr.consumed += lr.r.Off - off
		}
		return nil, long.Terminated, errSkipped
	case errors.Is(err, io.EOF):
		return nil, false, io.EOF
	case err != nil:
		return nil, false, fmt.Errorf("%s: read: %w", lr.path, err)
	}
	lr.line = lr.r.Line
	if terminated {
		n := lr.r.Off - off
		lr.consumed += n
		if int64(len(line))+1 < n {
			// jsonl drops a carriage return before the newline; this
			// decoder has always kept it (it is JSON whitespace), so a
			// row's digest is what it was. It is still in the buffer.
			line = line[:len(line)+1]
		}
	}
	return line, terminated, nil
}

// errSkipped is next's report of a line over MaxLineBytes, read through
// and not returned; terminated says whether it ended with a newline (an
// unterminated one may still be being written).
var errSkipped = errors.New("line over the bound skipped")

// skippedText is the notice that stands for one line too large to read:
// its address is kept and the rest of the transcript stays readable. Its
// line number is the event's Line.
const skippedText = "[oversized line skipped]"

// blank reports whether a line holds only whitespace.
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }
