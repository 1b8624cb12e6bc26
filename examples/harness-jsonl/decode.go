package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/notesoup/notesoup/contract"
)

// maxLineBytes bounds one line, so a corrupt or hostile file (a gigabyte
// without a newline) is refused after reading this much of it instead of
// exhausting memory. A chat message of 8 MiB is far beyond any real one.
const maxLineBytes = 8 << 20

// readBufferSize is the read chunk; a longer line is assembled from several.
const readBufferSize = 64 << 10

// record is one line of a session file. Fields it does not name are
// ignored, so a writer may add its own.
type record struct {
	Role string `json:"role"`
	Text string `json:"text"`
	TS   string `json:"ts"`
}

// message is a record checked against the format.
type message struct {
	role contract.Role
	text string
	time time.Time // zero when the line has no ts
}

// parseLine checks one non-blank line: a JSON object whose role is user or
// assistant and whose ts, when present, is an RFC 3339 time.
func parseLine(line []byte) (message, error) {
	if line = bytes.TrimSpace(line); len(line) == 0 || line[0] != '{' {
		return message{}, errors.New("not a JSON object")
	}
	var r record
	if err := json.Unmarshal(line, &r); err != nil {
		return message{}, fmt.Errorf("not a JSON object: %v", err)
	}
	m := message{role: contract.Role(r.Role), text: r.Text}
	if m.role != contract.RoleUser && m.role != contract.RoleAssistant {
		return message{}, fmt.Errorf("role %.40q is neither %q nor %q", r.Role, contract.RoleUser, contract.RoleAssistant)
	}
	if r.TS != "" {
		t, err := time.Parse(time.RFC3339Nano, r.TS)
		if err != nil {
			return message{}, fmt.Errorf("ts %.40q is not an RFC 3339 time", r.TS)
		}
		m.time = t
	}
	return m, nil
}

// Decode implements contract.Harness. Each line is one message event, in
// line order: seq counts the messages from 1, so an address never moves
// when the file grows (the file is only ever appended to). The whole
// session is one window, jsonl:<id>:1. Blank lines are skipped. A last line
// without its newline that does not parse is a write in progress and is
// left out; any other line that does not parse refuses the session,
// naming the file and the line.
func (Harness) Decode(ctx context.Context, req contract.DecodeRequest, emit contract.EmitFunc) (contract.Summary, error) {
	roots, err := rootsOr(req.Roots)
	if err != nil {
		return contract.Summary{}, err
	}
	path := req.Session.Path
	f, _, id, err := openSession(path, roots)
	if err != nil {
		return contract.Summary{}, err
	}
	defer f.Close()
	window := windowID(id, 1)
	sum := contract.Summary{Windows: []string{window}, HeadWindow: window, HeadKnown: true, HeadOrdinal: 1}
	lines := lineReader{r: bufio.NewReaderSize(f, readBufferSize)}
	var seq int64
	for {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		line, terminated, err := lines.next()
		if err == io.EOF {
			return sum, nil
		}
		var long *lineTooLongError
		if errors.As(err, &long) {
			return sum, &contract.Refusal{Harness: Name, Path: path, Line: long.line, Reason: long.Error()}
		}
		if err != nil {
			return sum, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m, err := parseLine(line)
		if err != nil {
			if !terminated {
				return sum, nil // a torn last line: the writer has not finished it
			}
			return sum, &contract.Refusal{Harness: Name, Path: path, Line: lines.n, Reason: err.Error()}
		}
		seq++
		ev := contract.Event{Seq: seq, Window: window, Kind: contract.KindMessage, Role: m.role, Text: m.text, Time: m.time, Line: lines.n}
		if err := emit(ev); err != nil {
			return sum, err // contract.ErrStopped included, unchanged
		}
	}
}

// lineTooLongError is a line over maxLineBytes.
type lineTooLongError struct{ line int }

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("line is longer than %d MiB; a record that large is corrupt or not a transcript", maxLineBytes>>20)
}

// lineReader reads lines of at most maxLineBytes, reusing one buffer.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	n   int // 1-based number of the line last returned
}

// next returns the next line without its line ending and whether it ended
// with a newline; io.EOF once there is none. The line is valid until the
// next call.
func (l *lineReader) next() ([]byte, bool, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(chunk) > maxLineBytes+len("\r\n") {
			return nil, false, &lineTooLongError{line: l.n + 1}
		}
		l.buf = append(l.buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(l.buf) == 0:
			return nil, false, io.EOF
		case err != nil && err != io.EOF:
			return nil, false, err
		}
		l.n++
		terminated := err == nil
		line := bytes.TrimSuffix(bytes.TrimSuffix(l.buf, []byte("\n")), []byte("\r"))
		if len(line) > maxLineBytes {
			return nil, false, &lineTooLongError{line: l.n}
		}
		return line, terminated, nil
	}
}
