package heaptest

import (
	"runtime"
	"testing"
)

// sink keeps the retaining case's chunks reachable from a global, so the
// compiler cannot prove them dead.
var sink [][]byte

// TestMeasure checks both sides of the bound the callers rely on: a function
// that keeps what it streams shows it, and one that streams the same bytes
// through a small window does not, however much garbage it leaves.
//
// Each function ends with a collection of its own while it still holds what
// it keeps. Which of the collections before it the sampler sees, and whether
// one is still marking when the function returns, depends on how the machine
// schedules the collector (on a loaded 2-core machine the keeping case was
// seen at 38 to 97 MB of its 128 MB); the last collection before Measure's
// final read does not, so the bounds below hold at any load.
func TestMeasure(t *testing.T) {
	const chunk, chunks = 64 << 10, 2048 // 128 MB streamed in both cases
	tests := []struct {
		name     string
		keep     int // chunks kept alive at once; 0 keeps all
		min, max uint64
	}{
		// All 128 MB are live at the final collection; 2 MB of slack for
		// whatever was live at the baseline and died meanwhile.
		{name: "keeps everything", keep: 0, min: 126 << 20, max: 1 << 40},
		// 16 chunks (1 MB) live at any collection; garbage never counts.
		{name: "keeps a window", keep: 16, min: 0, max: 8 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := Measure(func() {
				sink = nil
				for i := 0; i < chunks; i++ {
					b := make([]byte, chunk)
					b[0] = byte(i)
					sink = append(sink, b)
					if tt.keep > 0 && len(sink) > tt.keep {
						sink = sink[1:]
					}
				}
				runtime.GC() // marks what f holds now, whatever the load
			})
			sink = nil
			if u.Cycles < MinCycles {
				t.Fatalf("only %d collections over 128 MB of allocation", u.Cycles)
			}
			if u.PeakLive < tt.min || u.PeakLive > tt.max {
				t.Errorf("peak live %.1f MB over %d cycles, want within [%d, %d] MB", float64(u.PeakLive)/(1<<20), u.Cycles, tt.min>>20, tt.max>>20)
			}
		})
	}
}
