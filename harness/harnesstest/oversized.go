package harnesstest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/jsonl"
)

// oversized is the length of the line OversizedLine inserts: over the
// bound by enough that a copy cut inside it, still past the bound, is a
// line being written.
const oversized = jsonl.MaxLineBytes + 64

// OversizedLine copies the transcript at src into a new folder, under the
// same name, with one line of oversized bytes inserted after
// its line after (a sparse hole of NULs: no disk used), and returns the
// copy's path. A decoder must skip that one line with a notice and read
// the rest; the line after it is line after+2 of the copy.
func OversizedLine(t testing.TB, src string, after int) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cut := 0
	for i := 0; i < after; i++ {
		k := bytes.IndexByte(data[cut:], '\n')
		if k < 0 {
			t.Fatalf("%s has fewer than %d lines", src, after)
		}
		cut += k + 1
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data[:cut]); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(oversized, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append([]byte{'\n'}, data[cut:]...)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// OversizedLineSkipped checks that b's decoder skips one line over
// jsonl.MaxLineBytes with a notice (text, at that line) and reads the
// rest: src decoded with such a line inserted after its line after gives
// every event of src, with the same seqs before the notice and one more
// after it (the notice takes an address, in file order); while that line
// is still being written (no newline yet) the events before it keep their
// seqs and no notice is shown.
func OversizedLineSkipped(t *testing.T, b *harness.Builtin, src string, after int, text string) {
	t.Helper()
	want := decodeAll(t, b, src)
	big := OversizedLine(t, src, after)
	got := decodeAll(t, b, big)
	if len(got) != len(want)+1 {
		t.Fatalf("%d events with the oversized line, %d without; want one more (the notice)", len(got), len(want))
	}
	shift := int64(0)
	for i, g := range got {
		if shift == 0 && g.Kind == contract.KindNotice && g.Text == text {
			if g.Line != after+1 {
				t.Errorf("the notice names line %d, want %d", g.Line, after+1)
			}
			shift = 1
			continue
		}
		w := want[i-int(shift)]
		wantLine := w.Line
		if wantLine > after {
			wantLine++
		}
		if g.Seq != w.Seq+shift || g.Text != w.Text || g.Kind != w.Kind || g.Line != wantLine || (w.PairSeq != 0) != (g.PairSeq != 0) {
			t.Errorf("event %d: seq %d line %d %s %.40q, want seq %d line %d %s %.40q", i, g.Seq, g.Line, g.Kind, g.Text, w.Seq+shift, wantLine, w.Kind, w.Text)
		}
	}
	if shift == 0 {
		t.Fatalf("no notice %q among the events", text)
	}
	// The same line while it is written: cut the copy inside it, past the
	// bound, as a writer appending it would leave it.
	info, err := os.Stat(big)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	head := 0
	for i := 0; i < after; i++ {
		head += bytes.IndexByte(data[head:], '\n') + 1
	}
	if err := os.Truncate(big, int64(head)+oversized-32); err != nil || info.Size() < int64(head)+oversized {
		t.Fatal(err)
	}
	torn := decodeAll(t, b, big)
	for i, g := range torn {
		if g.Kind == contract.KindNotice && g.Text == text {
			t.Errorf("the notice is shown while the line is still being written")
		}
		if i >= len(want) || g.Seq != want[i].Seq || g.Text != want[i].Text {
			t.Errorf("while the line is written, event %d is seq %d %.40q, want the same as without it", i, g.Seq, g.Text)
		}
	}
}

// decodeAll decodes path with b, failing the test on an error.
func decodeAll(t *testing.T, b *harness.Builtin, path string) []contract.Event {
	t.Helper()
	var out []contract.Event
	_, err := b.Decode(context.Background(), contract.DecodeRequest{Session: contract.Session{Harness: b.Name, Path: path}, Roots: []string{filepath.Dir(path)}},
		func(e contract.Event) error { out = append(out, e); return nil })
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}
