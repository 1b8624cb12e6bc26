package notes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchNotes is the scope size the operation benchmarks run against: a
// well-used project, not an empty one, so walks and scope checks cost what
// they will in practice.
const benchNotes = 100

func benchSpace(b *testing.B, notes int) *Space {
	b.Helper()
	home := b.TempDir()
	proj := b.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	sp, err := Open(home).Space(proj)
	if err != nil {
		b.Fatal(err)
	}
	body := "# A note about something\n" + strings.Repeat("Some fact worth keeping across resets.\n", 20)
	for i := 0; i < notes; i++ {
		if _, err := sp.Write(WriteRequest{Name: fmt.Sprintf("topic%02d/note%03d.md", i%10, i), Content: body}); err != nil {
			b.Fatal(err)
		}
	}
	return sp
}

func BenchmarkList(b *testing.B) {
	for _, n := range []int{benchNotes, 500} {
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			sp := benchSpace(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := sp.List(ListRequest{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRead(b *testing.B) {
	sp := benchSpace(b, benchNotes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := sp.Read(ReadRequest{Name: "topic03/note013.md"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	sp := benchSpace(b, benchNotes)
	content := "# Bench\n" + strings.Repeat("line of text\n", 50)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := sp.Write(WriteRequest{Name: "bench.md", Content: content}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEdit(b *testing.B) {
	sp := benchSpace(b, benchNotes)
	if _, err := sp.Write(WriteRequest{Name: "bench.md", Content: "# Bench\nstate: even\n" + strings.Repeat("line of text\n", 50)}); err != nil {
		b.Fatal(err)
	}
	pairs := [2][2]string{{"state: even", "state: odd"}, {"state: odd", "state: even"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pairs[i%2]
		if _, err := sp.Edit(EditRequest{Name: "bench.md", OldText: p[0], NewText: p[1]}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDelete(b *testing.B) {
	sp := benchSpace(b, benchNotes)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if _, err := sp.Write(WriteRequest{Name: "gone/bench.md", Content: "x\n"}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := sp.Delete(DeleteRequest{Name: "gone/bench.md"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot500(b *testing.B) {
	sp := benchSpace(b, 500)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := sp.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}
