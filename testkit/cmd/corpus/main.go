// Command corpus writes a deterministic benchmark corpus of Claude Code, Pi
// and Codex transcripts under a directory, in each harness's root layout, and
// prints a JSON description (roots, files, bytes, needle) on stdout.
//
//	go run ./testkit/cmd/corpus -dir /tmp/corpus -size 1G -seed 1
package main

import (
	"flag"
	"fmt"
	"os"
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
	n, err := corpus.ParseSize(*size)
	if err != nil {
		fmt.Fprintf(os.Stderr, "corpus: -size: %v\n", err)
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
	_ = corpus.PrintJSON(os.Stdout, out)
}
