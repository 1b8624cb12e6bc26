// Package heaptest measures how much heap a function keeps alive while it
// runs, for the tests that hold decoding and paging to "bounded by the page,
// not the corpus".
//
// It reads the live heap the collector marked at each cycle
// (runtime/metrics /gc/heap/live:bytes), not HeapAlloc. HeapAlloc also holds
// the garbage not yet swept, which the pacer lets grow to the whole heap
// again before it collects, and further on a loaded machine: a bound on it
// tests the collector's pacing and the machine's load as much as the code,
// and it failed CI once on a 2-core runner for no change in the code. What
// a function keeps alive is what grows with the corpus when the code is
// wrong, and it does not depend on load.
package heaptest

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// Metric names read from runtime/metrics.
const (
	liveBytes = "/gc/heap/live:bytes"
	gcCycles  = "/gc/cycles/total:gc-cycles"
)

// gcPercent is the GOGC Measure runs f under. A cycle ends each time the
// heap grows by this share of the live heap, so a live heap that is still
// growing is seen at no less than 1/(1+25%) = 80% of its size; the default
// 100 would halve it. The extra cycles cost little on the small heaps that
// pass.
const gcPercent = 25

// sampleEvery is how often the sampler reads the metrics. A cycle's live
// figure stays readable until the next cycle ends, and a function that
// streams hundreds of megabytes through a heap of a few ends a cycle every
// few megabytes, so a millisecond catches nearly all of them.
const sampleEvery = time.Millisecond

// Usage is what Measure saw.
type Usage struct {
	// PeakLive is the largest live heap any cycle marked while the function
	// ran, above the live heap before it started. It is a lower bound: on a
	// loaded machine the sampler can miss cycles, and a cycle still marking
	// when the function returns is not seen. So it suits upper bounds ("kept
	// no more than"), which load can only make easier to meet, never lower
	// ones; the last cycle to end before the function returns is always seen.
	PeakLive uint64
	// Cycles is how many collections ended while it ran. A test needs some
	// before PeakLive says anything; MinCycles is the usual floor.
	Cycles uint64
}

// MinCycles is the fewest collections a test should see before it trusts
// PeakLive: one or two could all land before the function had built up
// anything, and a function streaming 200 MB through the heap runs dozens.
const MinCycles = 5

// Measure runs f and reports the live heap it held.
func Measure(f func()) Usage {
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	runtime.GC()
	samples := []metrics.Sample{{Name: liveBytes}, {Name: gcCycles}}
	metrics.Read(samples)
	base, startCycles := samples[0].Value.Uint64(), samples[1].Value.Uint64()

	var (
		mu   sync.Mutex
		peak uint64
	)
	record := func(s []metrics.Sample) {
		if live := s[0].Value.Uint64(); live > base {
			mu.Lock()
			peak = max(peak, live-base)
			mu.Unlock()
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: liveBytes}, {Name: gcCycles}}
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(s)
			record(s)
		}
	}()
	f()
	close(done)
	wg.Wait()
	metrics.Read(samples)
	record(samples)
	return Usage{PeakLive: peak, Cycles: samples[1].Value.Uint64() - startCycles}
}

// Within runs f under Measure and fails t when the measure says nothing
// (fewer than MinCycles collections) or f kept more than bound bytes alive.
// what names f in the messages.
func Within(t testing.TB, what string, bound uint64, f func()) {
	t.Helper()
	u := Measure(f)
	t.Logf("%s: peak live heap %.2f MB over %d collections (bound %d MB)", what, float64(u.PeakLive)/(1<<20), u.Cycles, bound>>20)
	if u.Cycles < MinCycles {
		t.Errorf("%s: only %d collections ended while it ran, fewer than %d: the heap was not measured; give it more to stream", what, u.Cycles, MinCycles)
	}
	if u.PeakLive > bound {
		t.Errorf("%s kept %.1f MB of heap alive; bound %d MB", what, float64(u.PeakLive)/(1<<20), bound>>20)
	}

}
