package bench

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time so far. On a shared,
// loaded machine wall time measures the neighbours; CPU time measures us.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter reports throughput per CPU-second ("cpu-MB/s", all threads, GC
// included) and CPU time per op beside go test's wall-clock figures.
type cpuMeter struct {
	b     *testing.B
	start time.Duration
	bytes int64
}

func startCPU(b *testing.B, bytesPerOp int64) *cpuMeter {
	return &cpuMeter{b: b, start: cpuTime(), bytes: bytesPerOp}
}

func (m *cpuMeter) stop() {
	used := cpuTime() - m.start
	if used <= 0 || m.b.N == 0 {
		return
	}
	m.b.ReportMetric(float64(used.Nanoseconds())/float64(m.b.N), "cpu-ns/op")
	if m.bytes > 0 {
		m.b.ReportMetric(float64(m.bytes)*float64(m.b.N)/used.Seconds()/1e6, "cpu-MB/s")
	}
}
