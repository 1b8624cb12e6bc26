// Package livetest checks a harness decoder against a transcript that is
// being written while it is read, the way a running harness appends to its
// session file: a writer appends the rest of a real transcript line by line,
// each line in two writes (so readers see a torn last line), while decodes
// run over and over.
//
// What must hold: no decode refuses the file (every committed line reads,
// the torn last line is tolerated), the highest seq never goes backwards,
// and every seq a decode reports names the same event (kind, role, tool id)
// as in the decode of the finished file.
package livetest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/history"
)

// Pacing of the writer: slow enough that many decodes run while it writes
// (a decode takes a few milliseconds), fast enough to finish in about a
// second for a transcript of a hundred lines.
const (
	lineGap   = 8 * time.Millisecond   // between two appended lines
	tornGap   = 3 * time.Millisecond   // between the two halves of one line
	minWriter = 400 * time.Millisecond // a short transcript's lines are spread over this
)

// MinDecodes is how many decodes must complete while the writer writes;
// fewer would mean the test did not exercise concurrent reading.
const MinDecodes = 10

// Decode decodes the transcript at path.
type Decode func(path string) ([]history.Event, error)

// identity is what must not change about a seq across reads.
type identity struct {
	Kind   history.Kind
	Role   history.Role
	ToolID string
}

// Run copies the first third of src's lines to a file named like src in a
// temporary directory (name keeps the harness's file naming), appends the
// rest while decoding repeatedly, and checks the guarantees above. It
// returns the number of decodes run during the writes.
func Run(t *testing.T, src string, decode Decode) int {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 6 {
		t.Fatalf("%s has only %d lines", src, len(lines))
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	start := len(lines) / 3
	if err := os.WriteFile(dst, bytes.Join(lines[:start], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return RunAt(t, dst, lines[start:], decode)
}

// RunAt appends rest to the file at dst (already holding a prefix) while
// decoding it, as Run describes.
func RunAt(t *testing.T, dst string, rest [][]byte, decode Decode) int {
	t.Helper()
	gap := lineGap
	if len(rest) > 0 && minWriter/time.Duration(len(rest)) > gap {
		gap = minWriter / time.Duration(len(rest))
	}
	var done, torn atomic.Bool
	werr := make(chan error, 1)
	go func() {
		defer done.Store(true)
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			werr <- err
			return
		}
		defer f.Close()
		for _, l := range rest {
			half := len(l) / 2
			if _, err := f.Write(l[:half]); err != nil {
				werr <- err
				return
			}
			torn.Store(true)
			time.Sleep(tornGap)
			torn.Store(false)
			if _, err := f.Write(l[half:]); err != nil {
				werr <- err
				return
			}
			time.Sleep(gap)
		}
		werr <- nil
	}()

	var snapshots [][]history.Event
	maxSeq := int64(0)
	tornReads := 0 // decodes that began while a line was half written
	for !done.Load() {
		if torn.Load() {
			tornReads++
		}
		evs, err := decode(dst)
		if err != nil {
			<-werr
			t.Fatalf("decode %d of a file being appended to failed: %v", len(snapshots)+1, err)
		}
		top := lastSeq(evs)
		if top < maxSeq {
			t.Errorf("decode %d: highest seq %d went back from %d", len(snapshots)+1, top, maxSeq)
		}
		maxSeq = max(maxSeq, top)
		snapshots = append(snapshots, evs)
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	final, err := decode(dst)
	if err != nil {
		t.Fatalf("decode of the finished file: %v", err)
	}
	if len(final) == 0 {
		t.Fatal("the finished file decodes to no events")
	}
	if len(snapshots) > 0 && lastSeq(snapshots[0]) >= lastSeq(final) {
		t.Errorf("the first decode already saw seq %d of %d: the reads did not overlap the writes", lastSeq(snapshots[0]), lastSeq(final))
	}
	want := map[int64]identity{}
	for _, ev := range final {
		want[ev.Seq] = identity{ev.Kind, ev.Role, ev.ToolID}
	}
	for i, evs := range snapshots {
		for _, ev := range evs {
			id := identity{ev.Kind, ev.Role, ev.ToolID}
			if w, ok := want[ev.Seq]; ok && w != id {
				t.Errorf("decode %d: seq %d is %+v, but %+v in the finished file", i+1, ev.Seq, id, w)
			}
		}
	}
	if tornReads == 0 {
		t.Errorf("no decode began while a line was half written; the torn-line case was not exercised")
	}
	if len(snapshots) < MinDecodes {
		t.Errorf("only %d decodes ran while the file was written; want at least %d", len(snapshots), MinDecodes)
	}
	if lastSeq(final) < maxSeq {
		t.Errorf("finished file's highest seq %d is below one seen while writing (%d)", lastSeq(final), maxSeq)
	}
	return len(snapshots)
}

func lastSeq(evs []history.Event) int64 {
	m := int64(0)
	for _, ev := range evs {
		m = max(m, ev.Seq)
	}
	return m
}

// Collect adapts a history.Decoder call to a Decode.
func Collect(dec func(history.Session, history.EmitFunc) (history.Summary, error)) Decode {
	return func(path string) ([]history.Event, error) {
		var evs []history.Event
		_, err := dec(history.Session{Path: path}, func(ev history.Event) error {
			evs = append(evs, ev)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		return evs, nil
	}
}
