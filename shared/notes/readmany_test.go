package notes

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestReadManyNotes lists and snapshots scopes small enough to be read on
// the caller's goroutine and large enough to be spread over workers, and
// checks every note comes back whole, with its own size and first line, in
// name order.
func TestReadManyNotes(t *testing.T) {
	for _, n := range []int{1, notesPerWorker - 1, notesPerWorker * maxReadWorkers * 3} {
		t.Run(fmt.Sprintf("notes=%d", n), func(t *testing.T) {
			sp := newSpace(t)
			var want []string
			for i := range n {
				name := fmt.Sprintf("d%d/n%04d.md", i%7, i)
				mustWrite(t, sp, name, fmt.Sprintf("# Note %d\n%s", i, strings.Repeat("x", i)))
				want = append(want, name)
			}
			mustWrite(t, sp, "~/global.md", "# Global\n")
			want = append(want, "~/global.md")
			// Project notes by name, then the global one.
			slices.Sort(want[:n])

			snap, err := sp.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			list, err := sp.List(ListRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(snap.Notes) != len(want) || len(list.Notes) != len(want) {
				t.Fatalf("snapshot has %d notes, list %d, want %d", len(snap.Notes), len(list.Notes), len(want))
			}
			for i, name := range want {
				s, l := snap.Notes[i], list.Notes[i]
				if s.Name != name || l.Name != name {
					t.Fatalf("note %d: snapshot %q, list %q, want %q", i, s.Name, l.Name, name)
				}
				r, err := sp.Read(ReadRequest{Name: name})
				if err != nil {
					t.Fatal(err)
				}
				if s.Content != r.Content || s.Size != int64(len(r.Content)) || l.Size != s.Size {
					t.Errorf("%s: snapshot %d bytes (size %d), list size %d, read %d bytes", name, len(s.Content), s.Size, l.Size, len(r.Content))
				}
				if l.FirstLine != FirstLine(r.Content) || s.Modified.IsZero() || !l.Modified.Equal(s.Modified) {
					t.Errorf("%s: list first line %q modified %v, snapshot modified %v", name, l.FirstLine, l.Modified, s.Modified)
				}
			}
		})
	}
}
