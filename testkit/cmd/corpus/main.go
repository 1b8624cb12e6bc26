// Command corpus writes a deterministic benchmark corpus of Claude Code, Pi
// and Codex transcripts under a directory, in each harness's root layout, and
// prints a JSON description (roots, files, bytes, needle) on stdout.
//
//	go run ./testkit/cmd/corpus -dir /tmp/corpus -size 1G -seed 1
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/notesoup/notesoup/testkit/corpus"
)

func main() {
	dir := flag.String("dir", "", "directory to write the corpus into (required; created if absent)")
	size := flag.String("size", "100M", "approximate total size: bytes, or with a K, M or G suffix")
	seed := flag.Uint64("seed", 1, "seed: the same seed and size give the same bytes")
	sessions := flag.Int("sessions", 0, "number of sessions (0: one per ~300 KB)")
	harnesses := flag.String("harnesses", "claude,pi,codex", "comma-separated harnesses")
	files := flag.Bool("files", false, "list every file in the JSON output")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "corpus: -dir is required (an empty directory to write into)")
		os.Exit(2)
	}
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintf(os.Stderr, "corpus: -size %q: %v (use e.g. 10M or 2G)\n", *size, err)
		os.Exit(2)
	}
	res, err := corpus.Generate(*dir, corpus.Options{Seed: *seed, TotalBytes: n, Sessions: *sessions, Harnesses: strings.Split(*harnesses, ",")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := map[string]any{"layout": res.Layout, "bytes": res.Bytes, "sessions": len(res.Files), "needle": res.Needle}
	per := map[string]map[string]int64{}
	for _, f := range res.Files {
		if per[f.Harness] == nil {
			per[f.Harness] = map[string]int64{}
		}
		per[f.Harness]["sessions"]++
		per[f.Harness]["bytes"] += f.Bytes
		per[f.Harness]["needles"] += int64(f.Needle)
	}
	out["harnesses"] = per
	if *files {
		out["files"] = res.Files
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}

// parseSize reads "123", "10K", "300M", "2G" (binary multiples).
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("not a positive size")
	}
	return int64(v * float64(mult)), nil
}
