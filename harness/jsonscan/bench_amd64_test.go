//go:build amd64 && !purego

package jsonscan

import (
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
)

// toolOutput is string content shaped like the tool output that is most of
// a transcript's bytes: lines of 20 to 80 bytes joined by \n escapes, a
// quote or a tab now and then, and a few non-ASCII letters.
func toolOutput(size int) []byte {
	r := rand.New(rand.NewPCG(7, 8))
	var sb strings.Builder
	for sb.Len() < size {
		for range 20 + r.IntN(60) {
			switch r.IntN(50) {
			case 0:
				sb.WriteString(`\"`)
			case 1:
				sb.WriteString(`\t`)
			case 2:
				sb.WriteString("é")
			default:
				sb.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		sb.WriteString(`\n`)
	}
	return []byte(sb.String()[:size])
}

// BenchmarkKernels is the on/off figure of the assembly (BENCHMARKS.md):
// each kernel beside its Go twin over the same 1 MiB of tool output, in
// MB/s and CPU time per byte.
func BenchmarkKernels(b *testing.B) {
	src := toolOutput(1 << 20)
	dst := make([]byte, len(src))
	runs := map[string]func([]byte) (int, bool, bool){"asm": run, "go": runGo}
	unescapes := map[string]func(dst, src []byte) (int, int, bool){"asm": unescapeRun, "go": unescapeRunGo}
	for _, impl := range []string{"asm", "go"} {
		b.Run("run/"+impl, func(b *testing.B) {
			scan := runs[impl]
			b.SetBytes(int64(len(src)))
			defer cpuPerByte(b, len(src))()
			for b.Loop() {
				// Step over the whole text as str does: a run, then
				// whatever stopped it.
				for i := 0; i < len(src); {
					n, _, _ := scan(src[i:])
					i += n + 1
				}
			}
		})
		b.Run("unescapeRun/"+impl, func(b *testing.B) {
			copyRun := unescapes[impl]
			b.SetBytes(int64(len(src)))
			defer cpuPerByte(b, len(src))()
			for b.Loop() {
				w := 0
				for r := 0; r < len(src); {
					dw, dr, _ := copyRun(dst[w:], src[r:])
					w, r = w+dw, r+dr+1
				}
			}
		})
	}
}

// cpuPerByte reports the process's CPU time per byte, which a loaded,
// shared machine moves far less than wall time. Call as defer cpuPerByte(b, n)().
func cpuPerByte(b *testing.B, n int) func() {
	start := cpuNanos()
	return func() {
		b.ReportMetric(float64(cpuNanos()-start)/float64(b.N)/float64(n), "cpu-ns/B")
	}
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
