package main

import (
	"flag"
	"fmt"
	"github.com/notesoup/notesoup/shared/redact"
	"github.com/notesoup/notesoup/shared/termsafe"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
)

func init() {
	register("search", "literal search across every session of Claude Code, Pi and Codex", runSearch)
}

const searchUsage = `Usage:
  notesoup search QUERY [--per-session n] [--limit n] [--json] [--stats]
                  [--claude-root dir]... [--pi-root dir]... [--codex-root dir]...
                  [--cache-dir dir | --no-cache]

QUERY is a literal, case-insensitive substring, matched as history list
--query matches it, over every session under the harnesses' roots. Sessions
with matches are listed newest first with their newest matching entries;
read one with: notesoup history list --session <harness>:<id> --query QUERY.

Answers are cached per query and file under --cache-dir (default
$XDG_CACHE_HOME/notesoup/search); a file that changed (size, modification
time or its last 4 KiB) is always searched again.
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
	srcs, err := searchSources(roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup search: %v\n", err)
		return 1
	}
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
	res, err := search.Search(query, search.Options{Sources: srcs, CacheDir: dir, PerSession: *per})
	if err != nil {
		fmt.Fprintf(stderr, "notesoup search: %v\n", err)
		return 2
	}
	for _, e := range res.Errors {
		fmt.Fprintf(stderr, "notesoup search: %s\n", e)
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
			// Snippets are transcript text: secrets masked, escapes inert.
			fmt.Fprintf(stdout, "  #%d %s %s %s: %s\n", e.Seq, termsafe.Sanitize(e.Window), e.Role, histStamp(e.Time),
				termsafe.Sanitize(redact.Mask(e.Snippet)))
		}
	}
	if total > len(res.Sessions) {
		fmt.Fprintf(stdout, "… %d more session(s); raise --limit to see them\n", total-len(res.Sessions))
	}
	return 0
}

// searchSources are the three harnesses' session files under the given or
// default roots, with their in-process decoders.
func searchSources(roots historyRoots) ([]search.Source, error) {
	cr := []string(roots.claude)
	if len(cr) == 0 {
		r, err := claude.DefaultRoot()
		if err != nil {
			return nil, err
		}
		cr = []string{r}
	}
	pr := []string(roots.pi)
	if len(pr) == 0 {
		var err error
		if pr, err = pi.DefaultRoots(); err != nil {
			return nil, err
		}
	}
	xr := []string(roots.codex)
	if len(xr) == 0 {
		var err error
		if xr, err = codex.DefaultRoots(); err != nil {
			return nil, err
		}
	}
	return []search.Source{
		{Harness: claude.Name, Files: func() ([]history.Session, error) { return search.ClaudeFiles(cr) }, Decoder: claude.Decoder{}},
		{Harness: pi.Name, Files: func() ([]history.Session, error) { return search.PiFiles(pr) }, Decoder: pi.Decoder{}},
		{Harness: codex.Name, Files: func() ([]history.Session, error) { return search.CodexFiles(xr) }, Decoder: codex.Decoder{Roots: xr}},
	}, nil
}
