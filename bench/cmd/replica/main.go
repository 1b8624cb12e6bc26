// Command replica writes the second benchmark corpus of issue #21: copies
// of the real Claude Code, Pi and Codex transcripts in samples/ up to a
// size, in the layout testkit/cmd/corpus writes (DIR/home/.claude/projects,
// DIR/home/.pi/agent/sessions, DIR/home/.codex/sessions), and prints a JSON
// description on stdout (the keys bench/run.sh reads from corpus.json).
//
//	go run ./bench/cmd/replica -samples samples -dir DIR -size 1G
//
// Every copy gets new ids, the same way in all its records: session ids
// (file names, Claude sessionId, Pi header id, Codex session_meta id) and
// every other UUID (record uuids, turn ids), Claude subagent ids, and the
// links between sessions (a Claude fork's requestSessionId, a Pi fork's
// parentSession path, a Codex fork's forked_from_id and history_base), so a
// fork copy names its parent's copy. Every copy lies Step earlier in time
// (records, file names, UUIDv7 times): Codex's day folders spread over many
// days. Copies share working directories in groups of -per-project, so a
// Claude project folder or Pi cwd folder holds a few hundred sessions. The
// file every scenario reads (notes.txt) gets a name per copy (n00042.md):
// "needle" is one copy's, event text of that copy only. "common" is a
// phrase of every copy; "nonascii" a non-ASCII word of every copy, when
// the samples have one.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/notesoup/notesoup/testkit/corpus"
)

// defaultCommon is the phrase every recorded scenario but the MCP one
// shows (the note's content), so it is in every copy.
const defaultCommon = "buy milk"

func main() {
	samples := flag.String("samples", "samples", "the repository's samples/ directory")
	dir := flag.String("dir", "", "directory to write the replica into (required; DIR/home must not exist)")
	size := flag.String("size", "100M", "size to reach: bytes, or with a K, M or G suffix")
	seed := flag.Uint64("seed", 1, "seed of the new ids and the needle's copy: the same flags give the same bytes")
	perProject := flag.Int("per-project", 200, "copies that share a working directory (a project folder)")
	step := flag.Duration("step", 7*time.Hour+13*time.Minute, "how much earlier each copy lies than the one before")
	common := flag.String("common", defaultCommon, "the common query: a phrase the samples' event text holds")
	files := flag.Bool("files", false, "list every file in the JSON output")
	flag.Parse()
	log := hclog.New(&hclog.LoggerOptions{Name: "replica", Output: os.Stderr, Level: hclog.Info})
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "replica: -dir is required (a directory to write into; its home/ must not exist)")
		os.Exit(2)
	}
	n, err := corpus.ParseSize(*size)
	if err != nil {
		fmt.Fprintf(os.Stderr, "replica: -size: %v\n", err)
		os.Exit(2)
	}
	out, err := run(Options{Samples: *samples, Dir: *dir, TotalBytes: n, Seed: *seed, PerProject: *perProject, Step: *step}, *common, *files, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = corpus.PrintJSON(os.Stdout, out)
}

// run checks the queries on the samples, writes the replica and returns its
// description.
func run(o Options, common string, listFiles bool, log hclog.Logger) (map[string]any, error) {
	facts, err := inspect(o.Samples, common)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := Write(o)
	if err != nil {
		return nil, err
	}
	log.Info("wrote replica", "dir", o.Dir, "copies", res.Copies, "files", len(res.Files), "bytes", res.Bytes, "took", time.Since(start).Round(time.Millisecond))
	per := map[string]map[string]int64{}
	sessions := 0
	for _, f := range res.Files {
		if per[f.Harness] == nil {
			per[f.Harness] = map[string]int64{}
		}
		per[f.Harness]["files"]++
		per[f.Harness]["bytes"] += f.Bytes
		if f.Session != "" {
			per[f.Harness]["sessions"]++
			sessions++
		}
	}
	for h, n := range facts.markerSessions {
		if per[h] != nil {
			per[h]["needle_sessions"] = int64(n)
		}
	}
	out := map[string]any{
		"layout": res.Layout, "bytes": res.Bytes, "sessions": sessions, "files": len(res.Files),
		"copies": res.Copies, "seed": o.Seed, "per_project": o.PerProject,
		"needle": res.Needle, "needle_copy": res.NeedleCopy, "needle_sessions": facts.markerTotal(),
		"common": common, "common_sessions": facts.commonSessions * res.Copies,
		"harnesses": per,
	}
	if facts.nonASCII != "" {
		out["nonascii"] = facts.nonASCII
	}
	if listFiles {
		out["file_list"] = res.Files
	}
	return out, nil
}
