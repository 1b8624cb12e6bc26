//go:build unix

package boot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/notes"
)

// bootBenchNotes is the store size the issue asks a boot build to handle.
const bootBenchNotes = 500

func benchNotes() []notes.Note {
	ns := make([]notes.Note, bootBenchNotes)
	body := "# A note about something\n" + strings.Repeat("Some fact worth keeping across resets.\n", 20)
	for i := range ns {
		name := fmt.Sprintf("topic%02d/note%03d.md", i%10, i)
		if i%50 == 0 {
			name = fmt.Sprintf("~/global%03d.md", i)
		}
		ns[i] = notes.Note{Name: name, Size: int64(len(body)), Modified: t0.Add(-time.Duration(i) * time.Minute), Content: body}
	}
	return ns
}

// BenchmarkBuild500 is the pure build over an in-memory snapshot.
func BenchmarkBuild500(b *testing.B) {
	in := Input{Binding: Binding{WindowID: "claude:s:0", ResetTool: "mcp__notesoup__empty_brain", ToolPrefix: "mcp__notesoup__"},
		Notes: notes.Snapshot{Project: "/p", Notes: benchNotes()}, Sticky: "s", Handoff: "h"}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		if _, err := Build(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromSpace500 reads 500 notes from disk and builds the block:
// what a harness pays at every window start, without process start.
func BenchmarkFromSpace500(b *testing.B) {
	home, proj := b.TempDir(), b.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	sp, err := notes.Open(home).Space(proj)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchNotes() {
		if _, err := sp.Write(notes.WriteRequest{Name: n.Name, Content: n.Content}); err != nil {
			b.Fatal(err)
		}
	}
	in := Input{Binding: Binding{WindowID: "pi:s:0", ResetTool: "empty_brain"}}
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		if _, err := FromSpace(sp, in); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuPerOp reports the process's CPU time (user + system) per operation
// next to ns/op: on a shared, loaded machine wall time mostly measures the
// neighbours. Call as defer cpuPerOp(b)().
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
