package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
	"github.com/notesoup/notesoup/shared/termsafe"
)

func init() {
	register("search", "literal search across every session of every harness (Claude Code, Pi, Codex and external plugins)", runSearch)
}

const searchUsage = `Usage:
  notesoup search QUERY [--per-session n] [--limit n] [--json] [--stats]
                  [--root name=dir]... [--claude-root dir]... [--pi-root dir]... [--codex-root dir]...
                  [--cache-dir dir | --no-cache]

QUERY is a literal, case-insensitive substring, matched as history list
--query matches it, over every session under the roots of every harness,
built in or an external plugin (--root NAME=DIR as for notesoup history).
Sessions with matches are listed newest first (by their last record's
time, as notesoup history sessions shows it) with their newest matching
entries; read one with:
  notesoup history list --session <harness>:<id> --query QUERY.

Secrets are masked before anything is matched or cut, as history list
masks them: a query for a secret's text finds nothing.

Answers are cached per query and file under --cache-dir (default
$XDG_CACHE_HOME/notesoup/search); a file that changed (size, modification
time, inode, change time or its last 4 KiB) is always searched again.
`

func runSearch(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newHistoryFlags("search", stderr, &roots)
	fs.Init("notesoup search", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, searchUsage) }
	per := fs.Int("per-session", search.DefaultPerSession, fmt.Sprintf("newest matching entries shown per session (1 to %d)", history.MaxListLimit))
	limit := fs.Int("limit", 20, "at most this many sessions (0: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	stats := fs.Bool("stats", false, "print how the answer was found (cache, raw scan, decode) on stderr")
	cacheDir := fs.String("cache-dir", "", "answer cache directory")
	noCache := fs.Bool("no-cache", false, "do not read or write the answer cache")
	// The query may come first: notesoup search QUERY --json.
	var query string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		query, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if query == "" && fs.NArg() > 0 {
		query = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "notesoup search: unexpected argument %q; quote a query with spaces\n", fs.Arg(0))
		return 2
	}
	if query == "" {
		fmt.Fprint(stderr, "notesoup search: give the text to look for\n\n"+searchUsage)
		return 2
	}
	if *per < 1 || *per > history.MaxListLimit {
		fmt.Fprintf(stderr, "notesoup search: --per-session must be between 1 and %d, got %d\n", history.MaxListLimit, *per)
		return 2
	}
	svc, done, err := historyService(roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup search: %v\n", err)
		return 1
	}
	defer done()
	dir := *cacheDir
	if *noCache {
		dir = ""
	} else if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "notesoup", "search")
		}
	}
	// A search allocates a few MB (listings, the answer cache) that stay
	// live until it returns; at the default GOGC the 4 MB minimum heap
	// makes a warm search collect once or twice for nothing (~13% of its
	// CPU). 400 still bounds the heap at five times what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	res, err := svc.Search(context.Background(), query, service.SearchOptions{CacheDir: dir, PerSession: *per})
	if err != nil {
		fmt.Fprintf(stderr, "notesoup search: %v\n", err)
		return 2
	}
	for _, e := range res.Errors {
		fmt.Fprintf(stderr, "notesoup search: %s\n", e)
	}
	if res.Stats.Files == 0 && len(res.Errors) > 0 {
		return 1 // nothing could be searched: no harness's sessions were found
	}
	if *stats {
		s := res.Stats
		fmt.Fprintf(stderr, "notesoup search: %d files, %s: %d from the cache, %d ruled out by the raw scan, %d decoded\n",
			s.Files, histSize(s.Bytes), s.Cached, s.Skipped, s.Decoded)
	}
	total := len(res.Sessions)
	if *limit > 0 && len(res.Sessions) > *limit {
		res.Sessions = res.Sessions[:*limit]
	}
	if *asJSON {
		histWriteJSON(stdout, struct {
			search.Result
			TotalSessions int `json:"total_sessions"`
		}{res, total})
		return 0
	}
	if total == 0 {
		fmt.Fprintf(stdout, "no session mentions %q\n", query)
		return 0
	}
	for _, s := range res.Sessions {
		fmt.Fprintf(stdout, "%s:%s  %d match(es)  %s  %s\n", s.Session.Harness, termsafe.Sanitize(s.Session.ID), s.Count, histStamp(s.Session.Updated), termsafe.Sanitize(s.Session.Path))
		for _, e := range s.Entries {
			// Snippets are transcript text, masked before they were cut
			// (history.VisibleEvent, in the search); here escapes are
			// made inert.
			fmt.Fprintf(stdout, "  #%d %s %s %s: %s\n", e.Seq, termsafe.Sanitize(e.Window), e.Role, histStamp(e.Time),
				termsafe.Sanitize(e.Snippet))
		}
	}
	if total > len(res.Sessions) {
		fmt.Fprintf(stdout, "… %d more session(s); raise --limit to see them\n", total-len(res.Sessions))
	}
	return 0
}
