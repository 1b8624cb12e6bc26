// Package jsonl reads transcript files line by line, the way every
// harness decoder needs: one reusable buffer, the line number and byte
// offset of each line, whether the line was terminated (an unterminated
// last line may be a write in progress), and a bound on a line's length so
// a corrupt or hostile file cannot make a decoder allocate without limit.
//
// A decoder makes two passes over a file (index, then emit). File reads a
// file of up to WholeBytes once, with one read, into a pooled buffer, and
// both passes take their lines from memory without copying them; a larger
// file is streamed through a pooled buffer of ReadBufferSize per pass, so
// memory stays bounded by these constants, not by the file.
package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// ReadBufferSize is the read chunk of a streamed file. Reads of a MiB cost
// a fraction of the system time of small ones; most lines fit one chunk and
// are handed out without copying, longer ones grow the buffer up to the
// line bound.
const ReadBufferSize = 1 << 20

// WholeBytes is the largest file read whole into memory: real sessions are
// a few hundred KiB to a few MiB, so nearly every decode reads its file
// once; a larger file is streamed, once per pass.
const WholeBytes = 4 << 20

// MaxLineBytes bounds one line. The largest real records are tool outputs
// and inline images of a few MiB; 32 MiB leaves room for those while a 1 GB
// line is refused after reading 32 MiB of it, not after allocating all of it.
const MaxLineBytes = 32 << 20

// LineTooLongError is a line over the reader's bound. The reader has
// consumed the line (Line and Off count it) and its next Next continues
// after it, so a decoder may skip the one record and read the rest.
type LineTooLongError struct {
	Line int // 1-based line number
	Max  int // the bound in bytes
	// Terminated is false when the line ran to the end of the input
	// without a newline (a write in progress, or a cut file).
	Terminated bool
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d MiB; a transcript record that large is corrupt or not a transcript", e.Line, e.Max>>20)
}

// Read buffers of ReadBufferSize to WholeBytes are reused between decodes,
// so a decode allocates no buffer in the steady state: a buffer allocated
// afresh costs page faults as the file is read into it, more than the read
// itself. spare keeps at most keepBuffers of them, the largest it is given
// (a decode takes the smallest that fits), so a run of small files does not
// evict the buffer the next large one needs; the garbage collector never
// empties it, and it holds at most keepBuffers*WholeBytes.
var spare struct {
	sync.Mutex
	bufs [][]byte
}

// keepBuffers is how many read buffers spare keeps: a decode holds one per
// file, a Codex fork one per rollout of its chain.
const keepBuffers = 3

// getBuf returns a buffer of at least n bytes (n <= WholeBytes).
func getBuf(n int) []byte {
	spare.Lock()
	best := -1
	for i, b := range spare.bufs {
		if cap(b) >= n && (best < 0 || cap(b) < cap(spare.bufs[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := spare.bufs[best]
		spare.bufs = append(spare.bufs[:best], spare.bufs[best+1:]...)
		spare.Unlock()
		return b[:cap(b)]
	}
	spare.Unlock()
	c := ReadBufferSize
	for c < n {
		c *= 2
	}
	return make([]byte, c)
}

// putBuf keeps a buffer for reuse if spare has room or holds a smaller
// one; buffers grown past WholeBytes for a long line are left to the
// garbage collector.
func putBuf(b []byte) {
	if cap(b) < ReadBufferSize || cap(b) > WholeBytes {
		return
	}
	b = b[:cap(b)]
	spare.Lock()
	defer spare.Unlock()
	if len(spare.bufs) < keepBuffers {
		spare.bufs = append(spare.bufs, b)
		return
	}
	small := 0
	for i := range spare.bufs {
		if cap(spare.bufs[i]) < cap(spare.bufs[small]) {
			small = i
		}
	}
	if cap(b) > cap(spare.bufs[small]) {
		spare.bufs[small] = b
	}
}

// File is one transcript opened for a decoder's passes: Lines starts a pass,
// Release ends the last. It is not safe for concurrent use.
type File struct {
	r    io.ReaderAt
	size int64
	max  int
	// whole, once loaded, holds the file's first len(whole) bytes (all it
	// had when read, at most size).
	whole  []byte
	buf    []byte // the pooled buffer whole lives in
	loaded bool
	err    error
}

// NewFile prepares r, of size bytes, for line reading with lines bounded by
// MaxLineBytes. Nothing is read until the first pass needs it.
func NewFile(r io.ReaderAt, size int64) *File {
	return &File{r: r, size: size, max: MaxLineBytes}
}

// Lines returns a reader over the file's first limit bytes. A file of up to
// WholeBytes is read on the first call and every later pass reads the same
// bytes from memory (a writer appending meanwhile is not seen, which is
// what a second pass over committed bytes wants). The lines it returns are
// valid until the following Next (of a streamed file) or Release.
func (f *File) Lines(limit int64) *Reader {
	if limit > f.size {
		limit = f.size
	}
	if f.size > WholeBytes {
		return f.stream(limit)
	}
	if !f.loaded {
		f.loaded = true
		f.buf = getBuf(int(f.size))
		n, err := f.r.ReadAt(f.buf[:f.size], 0)
		if err == io.EOF {
			err = nil // the file shrank since its size was taken
		}
		f.whole, f.err = f.buf[:n], err
	}
	if f.err != nil {
		return &Reader{max: f.max, err: f.err}
	}
	if limit > int64(len(f.whole)) {
		limit = int64(len(f.whole))
	}
	return &Reader{buf: f.whole[:limit], w: int(limit), eof: true, max: f.max}
}

// Stable reports whether every pass reads the bytes the first pass read:
// the file was small enough to be read whole, once. A later pass over a
// stable file need not check that its lines are the ones it indexed.
func (f *File) Stable() bool { return f.size <= WholeBytes }

// Whole returns the bytes a Stable file was read into, once a pass has
// started, or nil. A decoder may look back at an earlier line in them
// instead of keeping a digest of every line; they are valid until Release.
func (f *File) Whole() []byte {
	if !f.Stable() {
		return nil
	}
	return f.whole
}

// stream reads a large file's first limit bytes through a pooled buffer,
// which Release returns.
func (f *File) stream(limit int64) *Reader {
	if f.buf == nil {
		f.buf = getBuf(ReadBufferSize)
	}
	return &Reader{src: io.NewSectionReader(f.r, 0, limit), buf: f.buf, max: f.max}
}

// Release returns the file's buffer for reuse. Lines read from the file
// must not be used after it.
func (f *File) Release() {
	if f.buf != nil {
		putBuf(f.buf)
	}
	f.buf, f.whole = nil, nil
}

// Reader yields the lines of a JSONL stream one at a time.
type Reader struct {
	src  io.Reader // nil when buf holds the whole input
	buf  []byte
	r, w int // buf[r:w] is read but not yet returned
	eof  bool
	err  error // a read error, returned once the buffered lines are out
	max  int
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
	return &Reader{src: r, buf: make([]byte, 64<<10), max: max}
}

// Next returns the next line without its newline (and without a trailing
// carriage return), and whether it was terminated by a newline. The slice
// is valid until the following call. At the end of input it returns
// io.EOF; a line over the bound returns a *LineTooLongError, after reading
// through it, and the next call returns the line after it.
func (lr *Reader) Next() (line []byte, terminated bool, err error) {
	scanned := 0 // bytes of buf[lr.r:lr.w] known to hold no newline
	for {
		if i := bytes.IndexByte(lr.buf[lr.r+scanned:lr.w], '\n'); i >= 0 {
			end := lr.r + scanned + i
			if end-lr.r > lr.max { // the newline is not part of the line
				lr.Off += int64(end + 1 - lr.r)
				lr.Line++
				lr.r = end + 1
				return nil, false, &LineTooLongError{Line: lr.Line, Max: lr.max, Terminated: true}
			}
			line = lr.buf[lr.r:end]
			lr.Off += int64(end + 1 - lr.r)
			lr.Line++
			lr.r = end + 1
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, true, nil
		}
		scanned = lr.w - lr.r
		if scanned > lr.max+1 {
			// Known to be too long: the rest is read through without
			// keeping it, so memory stays bounded by the line bound.
			return nil, false, lr.discard()
		}
		if lr.eof || lr.err != nil {
			if scanned == 0 {
				if lr.err != nil {
					return nil, false, lr.err
				}
				return nil, false, io.EOF
			}
			line = lr.buf[lr.r:lr.w]
			lr.Off += int64(scanned)
			lr.Line++
			lr.r = lr.w
			return line, false, nil
		}
		lr.fill()
	}
}

// discard consumes the rest of a line over the bound, through its newline
// or the end of the input, reading into the buffer without growing it.
func (lr *Reader) discard() *LineTooLongError {
	for {
		if i := bytes.IndexByte(lr.buf[lr.r:lr.w], '\n'); i >= 0 {
			lr.Off += int64(i + 1)
			lr.r += i + 1
			lr.Line++
			return &LineTooLongError{Line: lr.Line, Max: lr.max, Terminated: true}
		}
		lr.Off += int64(lr.w - lr.r)
		lr.r, lr.w = 0, 0
		if lr.eof || lr.err != nil {
			lr.Line++
			return &LineTooLongError{Line: lr.Line, Max: lr.max}
		}
		lr.fill()
	}
}

// fill moves the unreturned bytes to the front of the buffer, grows it if
// they fill it (a long line, up to the bound), and reads more.
func (lr *Reader) fill() {
	if lr.r > 0 {
		lr.w = copy(lr.buf, lr.buf[lr.r:lr.w])
		lr.r = 0
	}
	if lr.w == len(lr.buf) {
		n := 2 * len(lr.buf)
		if n > lr.max+2 {
			n = lr.max + 2 // enough to tell a line over the bound
		}
		grown := make([]byte, n)
		copy(grown, lr.buf[:lr.w])
		lr.buf = grown
	}
	n, err := lr.src.Read(lr.buf[lr.w:])
	lr.w += n
	switch {
	case err == io.EOF:
		lr.eof = true
	case err != nil:
		lr.err = err
	}
}
