package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
	"github.com/notesoup/notesoup/shared/termsafe"
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(searchCommand(""))
}

// searchCommand is `notesoup search`, and with parent "history" the same
// command as `notesoup history search`.
func searchCommand(parent string) *command {
	c := &command{
		name:    "search",
		summary: "literal search across every session of every harness (Claude Code, Pi, Codex and external plugins)",
		usage:   strings.TrimSpace(parent+" search") + " QUERY... [flags]",
		flags:   func(fs *pflag.FlagSet) { new(searchOpts).define(fs) },
		about:   searchAbout,
	}
	c.run = func(args []string, stdout, stderr io.Writer) int { return searchAs(c, args, stdout, stderr) }
	return c
}

const searchAbout = `QUERY is literal text, case-insensitive unless --case-sensitive; several
words are one query ("search oat milk" looks for "oat milk"). Flags may come
before, between or after the words. Sessions with matches are listed newest
first (by their last record's time) with their newest matching entries;
read one with:
  notesoup history list --session HARNESS:ID --query QUERY

Matches are highlighted on a terminal (--color); into a pipe or a file the
output is plain text. Session files are shown with --paths, relative to
your home.

Secrets are masked before anything is matched or cut, as history list
masks them: a query for a secret's text finds nothing.

--case-sensitive keeps the entries whose masked text around the match holds
QUERY with the same case; the count is of those entries.

Answers are cached under --cache-dir (default $XDG_CACHE_HOME/notesoup/search);
a file that changed is always searched again.

Exit status: 0 when a session matches, 1 when none does, 2 on an error.
`

// searchOpts are search's flags.
type searchOpts struct {
	roots         historyRoots
	per, limit    int
	json, stats   bool
	cacheDir      string
	noCache       bool
	color         string
	paths         bool
	caseSensitive bool
}

func (o *searchOpts) define(fs *pflag.FlagSet) {
	historyFlags(fs, &o.roots)
	fs.IntVar(&o.per, "per-session", search.DefaultPerSession, fmt.Sprintf("show the newest `N` matching entries per session (1 to %d)", history.MaxListLimit))
	fs.IntVar(&o.limit, "limit", 20, "list at most `N` sessions (0: all)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	fs.BoolVar(&o.stats, "stats", false, "print how the answer was found (cache, raw scan, decode) on stderr")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "the search index and kept answers `DIR` (default $XDG_CACHE_HOME/notesoup/search)")
	fs.BoolVar(&o.noCache, "no-cache", false, "do not use or write the search index or kept answers")
	colorFlag(fs)
	fs.BoolVar(&o.paths, "paths", false, "show each session's file, relative to your home")
	fs.BoolVar(&o.caseSensitive, "case-sensitive", false, "match the query's case exactly")
}

// runSearch is `notesoup search`.
func runSearch(args []string, stdout, stderr io.Writer) int {
	return searchAs(commands["search"], args, stdout, stderr)
}

// searchAs runs the search as the command c (search, history search).
func searchAs(c *command, args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(c, args, stdout, stderr)
	var o searchOpts
	fs := newFlags("search")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	o.color = fs.Lookup("color").Value.String()
	// Words are one query, as gh search takes them: the shell split what
	// the person typed.
	query := strings.Join(pos, " ")
	if strings.TrimSpace(query) == "" {
		return inv.usageErr("give the text to look for, e.g. notesoup search \"oat milk\"")
	}
	if o.per < 1 || o.per > history.MaxListLimit {
		return inv.usageErr("--per-session must be between 1 and %d, got %d", history.MaxListLimit, o.per)
	}
	if o.limit < 0 {
		return inv.usageErr("--limit must be 0 (all) or more, got %d", o.limit)
	}
	color, err := useColor(o.color, stdout)
	if err != nil {
		return inv.usageErr("%v", err)
	}
	svc, done, err := historyService(o.roots)
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	dir := o.cacheDir
	if o.noCache {
		dir = ""
	} else if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "notesoup", "search")
		}
	}
	per := o.per
	if o.caseSensitive {
		// The candidates: every entry the case-insensitive search keeps,
		// filtered below.
		per = history.MaxListLimit
	}
	// A search allocates a few MB (listings, the answer cache) that stay
	// live until it returns; at the default GOGC the 4 MB minimum heap
	// makes a warm search collect once or twice for nothing (~13% of its
	// CPU). 400 still bounds the heap at five times what is live.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	// The engine stops once the newest --limit sessions are complete,
	// except for --json (its total_sessions is exact) and
	// --case-sensitive (which filters sessions after the search).
	limit := o.limit
	if o.json || o.caseSensitive {
		limit = 0
	}
	// Sessions are written as the search hands them over, newest first,
	// so what it holds does not grow with the answer (--json --limit 0
	// over a common word).
	out := &searchOut{w: stdout, query: query, o: o, color: color}
	res, err := svc.Search(context.Background(), query, service.SearchOptions{CacheDir: dir, PerSession: per, Limit: limit, Emit: out.session})
	if err != nil {
		if out.started {
			inv.json = false // stdout holds half a document: the error goes to stderr
		}
		return inv.fail(err)
	}
	for _, e := range res.Errors {
		inv.warn(e)
	}
	if res.Stats.Files == 0 && len(res.Errors) > 0 {
		return inv.failf("nothing could be searched: no harness's sessions were found")
	}
	if o.stats {
		s := res.Stats
		fmt.Fprintf(stderr, "%s: %s in %s: %d from the cache, %d ruled out by the raw scan, %d decoded\n",
			inv.prog(), plural(s.Files, "file", "files"), histSize(s.Bytes), s.Cached, s.Skipped, s.Decoded)
	}
	found := exitOK
	if out.total == 0 {
		found = exitNone
	}
	if o.json {
		if err := out.finish(res); err != nil {
			inv.json = !out.started
			return inv.fail(err)
		}
		return found
	}
	if out.total == 0 {
		fmt.Fprintf(stderr, "%s: no session mentions %q\n", inv.prog(), query)
		return found
	}
	if out.total > out.shown {
		more := out.total - out.shown
		fmt.Fprintf(stdout, "… %d more %s; raise --limit to see them\n", more, map[bool]string{true: "session", false: "sessions"}[more == 1])
	} else if res.More > 0 { // an upper bound: sessions the index could not rule out
		fmt.Fprintf(stdout, "… up to %d more %s; raise --limit to see them\n", res.More, map[bool]string{true: "session", false: "sessions"}[res.More == 1])
	}
	return found
}

// searchOut writes a search's sessions as the engine hands them over
// (search.Options.Emit): the first --limit of them (all with --limit 0),
// each filtered to its exact-case entries first with --case-sensitive,
// and counts every one. Under --json the document is opened at the first
// session written and closed by finish, byte for byte the document
// writeJSON writes of the whole answer.
type searchOut struct {
	w     io.Writer
	query string
	o     searchOpts
	color bool
	// total counts the sessions with matches, shown those written.
	total, shown int
	// started: the --json document is open (its sessions array).
	started bool
}

// searchJSON is the --json document: the answer, and how many sessions
// matched in all (the answer lists at most --limit of them).
type searchJSON struct {
	search.Result
	TotalSessions int `json:"total_sessions"`
}

// jsonSessions is where the sessions array starts in searchJSON's
// encoding when it is empty; nothing before it can hold it (the query is
// one line, and its quotes are escaped).
const jsonSessions = "\n  \"sessions\": []"

// session is search.Options.Emit.
func (so *searchOut) session(sh search.SessionHits) error {
	if so.o.caseSensitive {
		kept := exactCase([]search.SessionHits{sh}, so.query, so.o.per)
		if len(kept) == 0 {
			return nil
		}
		sh = kept[0]
	}
	so.total++
	if so.o.limit > 0 && so.shown >= so.o.limit {
		return nil
	}
	so.shown++
	if !so.o.json {
		if so.shown > 1 {
			if _, err := fmt.Fprintln(so.w); err != nil {
				return err
			}
		}
		return printSession(so.w, sh, so.query, so.o, so.color)
	}
	var b []byte
	if !so.started {
		head, err := json.MarshalIndent(searchJSON{Result: search.Result{Query: so.query, Sessions: []search.SessionHits{}}}, "", "  ")
		if err != nil {
			return err
		}
		i := bytes.Index(head, []byte(jsonSessions))
		if i < 0 {
			return fmt.Errorf("search: the --json document has no sessions array")
		}
		b = append(head[:i+len(jsonSessions)-1:i+len(jsonSessions)-1], "\n    "...)
		so.started = true
	} else {
		b = []byte(",\n    ")
	}
	js, err := json.MarshalIndent(sh, "    ", "  ")
	if err != nil {
		return err
	}
	_, err = so.w.Write(termsafe.JSON(append(b, js...)))
	return err
}

// finish writes the rest of the --json document after the sessions (the
// whole of it when none was written).
func (so *searchOut) finish(res search.Result) error {
	res.Sessions = []search.SessionHits{}
	if !so.started {
		return writeJSON(so.w, searchJSON{res, so.total})
	}
	doc, err := json.MarshalIndent(searchJSON{res, so.total}, "", "  ")
	if err != nil {
		return err
	}
	i := bytes.Index(doc, []byte(jsonSessions))
	if i < 0 {
		return fmt.Errorf("search: the --json document has no sessions array")
	}
	tail := append([]byte("\n  ]"), doc[i+len(jsonSessions):]...)
	_, err = so.w.Write(append(termsafe.JSON(tail), '\n'))
	return err
}

// printSession prints one session as ripgrep groups a file's matches: a
// heading, then its entries in aligned columns.
func printSession(w io.Writer, s search.SessionHits, query string, o searchOpts, color bool) error {
	q := termsafe.Sanitize(query)
	head := paint(color, sgrSession, s.Session.Harness+":"+termsafe.Sanitize(s.Session.ID))
	fmt.Fprintf(w, "%s  %s  updated %s", head, plural(s.Count, "match", "matches"), histStamp(s.Session.Updated))
	if o.paths {
		fmt.Fprintf(w, "  %s", termsafe.Sanitize(shortPath(s.Session.Path)))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range s.Entries {
		// Snippets are transcript text, masked before they were cut
		// (history.VisibleEvent, in the search); here escapes are made
		// inert, then the matches marked.
		snip := highlight(oneLineText(termsafe.Sanitize(e.Snippet)), q, o.caseSensitive, color)
		fmt.Fprintf(tw, "  #%d\t%s\t%s\t%s\n", e.Seq, e.Role, histStamp(e.Time), snip)
	}
	// A write error (a closed pipe) is the flush's: tabwriter keeps the
	// first one.
	return tw.Flush()
}

// oneLineText keeps a cell on its line: tabs and line breaks become spaces.
func oneLineText(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

// exactCase filters a case-insensitive answer down to the entries whose
// masked text around the match holds query with its exact case, keeping the
// newest per of them per session; sessions left with none are dropped. The
// engine matches case-insensitively, so this is a filter over its
// candidates, never a second search.
func exactCase(sessions []search.SessionHits, query string, per int) []search.SessionHits {
	out := sessions[:0]
	for _, s := range sessions {
		var keep []history.Entry
		for _, e := range s.Entries {
			if strings.Contains(e.Snippet, query) {
				keep = append(keep, e)
			}
		}
		if len(keep) == 0 {
			continue
		}
		s.Count = len(keep)
		if len(keep) > per {
			keep = keep[len(keep)-per:] // entries are oldest first: keep the newest
		}
		s.Entries = keep
		out = append(out, s)
	}
	return out
}
