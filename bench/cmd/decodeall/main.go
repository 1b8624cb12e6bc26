// Command decodeall decodes every session of one harness under a root with
// the in-process decoder, for whole-process benchmarks (hyperfine) beside
// cat and jq over the same files. It prints one JSON line: files, bytes,
// events, CPU and wall time, MB/s, and the peak live heap it sampled.
//
//	decodeall -harness pi -root ~/.pi/agent/sessions
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
)

// heapSample is how often the live heap is sampled for its peak.
const heapSample = 2 * time.Millisecond

func main() {
	harness := flag.String("harness", "", "claude, pi or codex (required)")
	root := flag.String("root", "", "the harness's sessions root (required)")
	flag.Parse()
	if *harness == "" || *root == "" {
		fmt.Fprintln(os.Stderr, "decodeall: -harness and -root are required")
		os.Exit(2)
	}
	var files []history.Session
	var err error
	var dec history.Decoder
	switch *harness {
	case claude.Name:
		files, err = claude.SessionFiles([]string{*root}, "")
		dec = claude.Decoder{}
	case pi.Name:
		files, err = pi.SessionFiles([]string{*root}, "")
		dec = pi.Decoder{}
	case codex.Name:
		files, err = codex.SessionFiles([]string{*root}, "")
		dec = codex.Decoder{Roots: []string{*root}}
	default:
		fmt.Fprintf(os.Stderr, "decodeall: unknown harness %q; use claude, pi or codex\n", *harness)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "decodeall:", err)
		os.Exit(1)
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(heapSample)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start, cpu0 := time.Now(), cpuTime()
	var bytes int64
	events, refused := 0, 0
	for _, f := range files {
		if fi, err := os.Stat(f.Path); err == nil {
			bytes += fi.Size()
		}
		_, err := dec.Decode(f, history.DecodeOptions{}, func(history.Event) error { events++; return nil })
		if err != nil {
			refused++
			fmt.Fprintf(os.Stderr, "decodeall: %v\n", err)
		}
	}
	wall, cpu := time.Since(start), cpuTime()-cpu0
	close(stop)
	out := map[string]any{
		"harness": *harness, "files": len(files), "bytes": bytes, "events": events, "refused": refused,
		"wall_s": wall.Seconds(), "cpu_s": cpu.Seconds(),
		"mb_per_s_wall": float64(bytes) / 1e6 / wall.Seconds(), "mb_per_cpu_s": float64(bytes) / 1e6 / cpu.Seconds(),
		"peak_heap_mb": float64(peak.Load()) / (1 << 20),
	}
	json.NewEncoder(os.Stdout).Encode(out)
	if refused > 0 {
		os.Exit(1)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
