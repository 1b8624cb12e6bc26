//go:build unix

package notes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
			defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		p := pairs[i%2]
		if _, err := sp.Edit(EditRequest{Name: "bench.md", OldText: p[0], NewText: p[1]}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDelete(b *testing.B) {
	sp := benchSpace(b, benchNotes)
	// Notes to delete are made in batches with the timer stopped: stopping
	// it around every single write would cost more than a delete.
	const batch = 200
	var cpu, seg int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%batch == 0 {
			if i > 0 {
				cpu += cpuNanos() - seg
			}
			b.StopTimer()
			for j := i; j < i+batch && j < b.N; j++ {
				if _, err := sp.Write(WriteRequest{Name: fmt.Sprintf("gone/b%d.md", j%batch), Content: "x\n"}); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			seg = cpuNanos()
		}
		if _, err := sp.Delete(DeleteRequest{Name: fmt.Sprintf("gone/b%d.md", i%batch)}); err != nil {
			b.Fatal(err)
		}
	}
	cpu += cpuNanos() - seg
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

func BenchmarkSnapshot500(b *testing.B) {
	sp := benchSpace(b, 500)
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		if _, err := sp.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuPerOp reports the process's CPU time (user + system) per operation
// next to ns/op. On a shared, loaded machine wall time mostly measures the
// neighbours; CPU time measures the work. Call as defer cpuPerOp(b)().
func cpuPerOp(b *testing.B) func() {
	start := cpuNanos()
	return func() {
		b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
