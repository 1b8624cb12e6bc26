package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/notesoup/notesoup/contract"
)

// headBytes and tailBytes bound what a listing reads of each file: the
// title and start time come from its first lines, the update time from its
// last. A listing describes every session, so it must not read them whole.
const (
	headBytes = 64 << 10
	tailBytes = 64 << 10
)

// maxTitleBytes bounds a session's title (its first user message on one
// line): enough to recognise a session in a listing, short enough that a
// listing of thousands stays small.
const maxTitleBytes = 120

// ListSessions implements contract.Harness: every <id>.jsonl directly
// inside each root, in file name order. Only regular files count; links
// are not followed, so a link cannot make the plugin read outside its
// roots. A missing root lists nothing (most machines have none).
func (Harness) ListSessions(ctx context.Context, f contract.SessionFilter, fn func(contract.Session) error) error {
	roots, err := rootsOr(f.Roots)
	if err != nil {
		return err
	}
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: listing %s: %w", Name, root, err)
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return err
			}
			id, ok := idOf(e.Name())
			// e.Type comes from the directory entry itself, so a link
			// to a regular file is not regular here.
			if !ok || !e.Type().IsRegular() || !strings.HasPrefix(id, f.IDPrefix) {
				continue
			}
			s := contract.Session{Harness: Name, ID: id, Path: filepath.Join(root, e.Name())}
			if !f.FilesOnly { // a files-only listing reads nothing from the files
				if err := describe(&s, roots); err != nil {
					// One unreadable file must not hide the others; the
					// host forwards a plugin's stderr into its log.
					fmt.Fprintf(os.Stderr, "%s: skipping %s: %v\n", Name, s.Path, err)
					continue
				}
			}
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// describe fills in a session's size, title and times from the head and
// tail of its file. Times come from the first and last ts; a file without
// one takes its modification time.
func describe(s *contract.Session, roots []string) error {
	f, info, _, err := openSession(s.Path, roots)
	if err != nil {
		return err
	}
	defer f.Close()
	s.Size = info.Size()
	head := make([]byte, min(info.Size(), headBytes))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	head = head[:n]
	whole := int64(n) == info.Size()
	var first, last time.Time
	for _, m := range messages(head, whole) {
		if first.IsZero() {
			first = m.time
		}
		if !m.time.IsZero() {
			last = m.time
		}
		if s.Title == "" && m.role == contract.RoleUser {
			s.Title = oneLine(m.text, maxTitleBytes)
		}
	}
	if !whole {
		if t, err := lastTime(f, info.Size()); err == nil && !t.IsZero() {
			last = t
		}
	}
	s.Started, s.Updated = first, last
	if s.Started.IsZero() {
		s.Started = info.ModTime()
	}
	if s.Updated.IsZero() {
		s.Updated = info.ModTime()
	}
	return nil
}

// lastTime returns the time of the last message in the file's last
// tailBytes that has one.
func lastTime(f *os.File, size int64) (time.Time, error) {
	off := max(size-tailBytes, 0)
	tail := make([]byte, size-off)
	n, err := f.ReadAt(tail, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return time.Time{}, err
	}
	tail = tail[:n]
	if off > 0 { // the first line is cut; it starts after the first newline
		i := bytes.IndexByte(tail, '\n')
		if i < 0 {
			return time.Time{}, nil
		}
		tail = tail[i+1:]
	}
	var last time.Time
	for _, m := range messages(tail, true) {
		if !m.time.IsZero() {
			last = m.time
		}
	}
	return last, nil
}

// messages parses the complete lines of b, skipping lines that do not
// parse: a listing describes what it can and leaves refusals to Decode.
// The text after the last newline counts only when b ends the file.
func messages(b []byte, endsFile bool) []message {
	if !endsFile {
		i := bytes.LastIndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		b = b[:i]
	}
	var out []message
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if m, err := parseLine(line); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// oneLine folds s onto one line (runs of spaces and control characters
// become one space) and cuts it to at most limit bytes on a rune boundary.
func oneLine(s string, limit int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		need := utf8.RuneLen(r) // invalid bytes arrive as U+FFFD, which has a length
		if space {
			need++
		}
		if b.Len()+need > limit {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
