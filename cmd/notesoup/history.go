package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/termsafe"
)

func init() {
	register("history", "list, search and read persisted sessions of Claude Code, Pi and Codex", runHistory)
}

// historyRoots are the roots the CLI reads sessions from, by harness name
// (--root NAME=DIR, or its alias --NAME-root DIR for a built-in); a harness
// not named reads its own default roots.
type historyRoots struct {
	dirs map[string][]string
	// showSecrets turns off the masking of API keys, tokens and private
	// keys in history output (shared/redact).
	showSecrets bool
}

// add appends one root of a harness.
func (r *historyRoots) add(harness, dir string) {
	if r.dirs == nil {
		r.dirs = map[string][]string{}
	}
	r.dirs[harness] = append(r.dirs[harness], dir)
}

// of returns the roots given for a harness; nil means its defaults.
func (r *historyRoots) of(harness string) []string { return r.dirs[harness] }

// options returns the service options that set the given roots, checking
// each name against the harnesses there are (names), so a misspelt --root
// is an error rather than a silently ignored flag.
func (r *historyRoots) options(names []string) ([]service.Option, error) {
	given := make([]string, 0, len(r.dirs))
	for h := range r.dirs {
		given = append(given, h)
	}
	sort.Strings(given)
	var opts []service.Option
	for _, h := range given {
		if !slices.Contains(names, h) {
			return nil, fmt.Errorf("--root %s=%s: there is no harness %q (harnesses: %s)", h, r.dirs[h][0], h, strings.Join(names, ", "))
		}
		opts = append(opts, service.WithRoots(h, r.dirs[h]...))
	}
	return opts, nil
}

// rootFlag is --root NAME=DIR: one root of any harness, an external
// plugin's too.
type rootFlag struct{ r *historyRoots }

// String implements flag.Value.
func (f rootFlag) String() string { return "" }

// Set implements flag.Value: each use adds one root.
func (f rootFlag) Set(v string) error {
	name, dir, ok := strings.Cut(v, "=")
	if !ok || name == "" || dir == "" {
		return fmt.Errorf("want NAME=DIR, a harness and a directory of its sessions, e.g. %s=/some/dir", builtins.Names()[0])
	}
	f.r.add(name, dir)
	return nil
}

// aliasRootFlag is --NAME-root DIR, short for --root NAME=DIR, kept for the
// built-in harnesses.
type aliasRootFlag struct {
	r       *historyRoots
	harness string
}

// String implements flag.Value.
func (f aliasRootFlag) String() string { return "" }

// Set implements flag.Value: each use adds one root.
func (f aliasRootFlag) Set(v string) error { f.r.add(f.harness, v); return nil }

// histMultiFlag is a repeatable string flag.
type histMultiFlag []string

// String implements flag.Value.
func (m *histMultiFlag) String() string { return strings.Join(*m, ",") }

// Set implements flag.Value: each use adds one value.
func (m *histMultiFlag) Set(v string) error { *m = append(*m, v); return nil }

// historyService returns the service the history commands use: sessions are
// listed and decoded by the harnesses, under the given roots. It is
// newService with the roots checked against the harnesses there are, an
// external plugin's included.
func historyService(roots historyRoots) (*service.Service, func(), error) {
	h := policy.Harnesses()
	opts, err := roots.options(h.Names())
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	return serviceOver(h, h.Close, opts...)
}

// historyUsage is the history command's help; the root aliases are listed
// from the built-in harnesses.
func historyUsage() string {
	aliases := make([]string, 0, len(builtins.Names()))
	for _, n := range builtins.Names() {
		aliases = append(aliases, "--"+n+"-root")
	}
	return fmt.Sprintf(historyUsageFormat, strings.Join(aliases, ", "))
}

const historyUsageFormat = `Usage:
  notesoup history sessions [--harness h] [--cwd dir] [--query text] [--limit n] [--json]
  notesoup history list [--session sel] [--query text] [--role r]... [--window id] [--after seq | --before seq | --oldest] [--limit n] [--json]
  notesoup history read [--session sel] --seq n [--offset n] [--json]
  notesoup history state [--session sel] [--json]
  notesoup history search QUERY [--json] [--per-session n] [--limit n]   (every session; same as notesoup search)

--show-secrets prints API keys, tokens and private keys verbatim (masked by default).

Roots (repeatable; default: where each harness writes, as notesoup plugins
lists them):
  --root NAME=DIR     sessions of harness NAME under DIR (any harness, an
                      external plugin's too)
  --NAME-root DIR     short for --root NAME=DIR, for the built-ins:
                      %s

Session selectors: latest (default), <harness>:latest, <harness>:<id>, or a
unique id prefix; never a path. --query is a literal, case-insensitive substring.
See docs/history-sessions.md.
`

func runHistory(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, historyUsage())
		return 0
	}
	switch args[0] {
	case "sessions":
		return historySessions(args[1:], stdout, stderr)
	case "list":
		return historyList(args[1:], stdout, stderr)
	case "read":
		return historyRead(args[1:], stdout, stderr)
	case "state":
		return historyState(args[1:], stdout, stderr)
	case "search":
		return runSearch(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "notesoup history: unknown subcommand %q\n\n%s", args[0], historyUsage())
	return 2
}

func newHistoryFlags(name string, stderr io.Writer, roots *historyRoots) *flag.FlagSet {
	fs := flag.NewFlagSet("notesoup history "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(rootFlag{roots}, "root", "NAME=DIR: read harness NAME's sessions under DIR instead of its defaults (repeatable; any harness)")
	for _, n := range builtins.Names() {
		fs.Var(aliasRootFlag{roots, n}, n+"-root", fmt.Sprintf("DIR: short for --root %s=DIR (repeatable)", n))
	}
	fs.BoolVar(&roots.showSecrets, "show-secrets", false, "show API keys, tokens and private keys verbatim instead of masked")
	return fs
}

// sessionJSON is a session as --json prints it.
type sessionJSON struct {
	Harness  string    `json:"harness"`
	ID       string    `json:"id"`
	Selector string    `json:"selector"`
	Path     string    `json:"path"`
	Cwd      string    `json:"cwd,omitempty"`
	Title    string    `json:"title,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Updated  time.Time `json:"updated,omitzero"`
	Size     int64     `json:"size"`
}

func historySessions(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newHistoryFlags("sessions", stderr, &roots)
	var q history.SessionQuery
	fs.StringVar(&q.Harness, "harness", "", "only this harness (claude, pi, codex)")
	fs.StringVar(&q.Cwd, "cwd", "", "only sessions that ran in this directory or below")
	fs.StringVar(&q.Query, "query", "", "literal, case-insensitive text in the id, title or cwd")
	fs.IntVar(&q.Limit, "limit", 50, "at most this many sessions (0: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	svc, done, err := historyService(roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup history sessions: %v\n", err)
		return 1
	}
	defer done()
	ss, err := svc.Sessions(context.Background(), q)
	if err != nil {
		// Sessions of the other harnesses are still worth printing.
		fmt.Fprintf(stderr, "notesoup history sessions: %v\n", err)
	}
	if *asJSON {
		out := make([]sessionJSON, 0, len(ss))
		for _, s := range ss {
			out = append(out, sessionJSON{Harness: s.Harness, ID: s.ID, Selector: s.Harness + ":" + s.ID, Path: s.Path,
				Cwd: s.Cwd, Title: s.Title, Started: s.Started, Updated: s.Updated, Size: s.Size})
		}
		histWriteJSON(stdout, out)
	} else {
		if len(ss) == 0 {
			fmt.Fprintln(stdout, "(no sessions)")
		}
		for _, s := range ss {
			fmt.Fprintf(stdout, "%s:%s  %s  %7s  %s  %s\n", s.Harness, termsafe.Sanitize(s.ID), histStamp(s.Updated), histSize(s.Size),
				termsafe.Sanitize(histOrDash(s.Cwd)), termsafe.Sanitize(s.Title))
		}
	}
	if err != nil && len(ss) == 0 {
		return 1
	}
	return 0
}

// openSession resolves a selector and prepares its projection through the
// harness plugin. The caller runs done when finished with it.
func openSession(sel string, roots historyRoots) (history.Session, history.Projection, history.RenderOptions, func(), error) {
	svc, done, err := historyService(roots)
	if err != nil {
		return history.Session{}, history.Projection{}, history.RenderOptions{}, nil, err
	}
	o, err := svc.Open(context.Background(), service.Caller{ShowSecrets: roots.showSecrets}, sel)
	if err != nil {
		done()
		return history.Session{}, history.Projection{}, history.RenderOptions{}, nil, err
	}
	return o.Session, o.Projection, o.Render, done, nil
}

func historyList(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newHistoryFlags("list", stderr, &roots)
	sel := fs.String("session", history.SelectorLatest, "session selector")
	var q history.ListQuery
	var roles histMultiFlag
	fs.StringVar(&q.Query, "query", "", "literal, case-insensitive substring")
	fs.Var(&roles, "role", "only this role: user, assistant, system, tool (repeatable or comma-separated)")
	fs.StringVar(&q.Window, "window", "", "only this window or segment id")
	fs.Int64Var(&q.After, "after", 0, "page forwards: entries after this seq (0: from the beginning, like --oldest)")
	fs.BoolVar(&q.Oldest, "oldest", false, "page forwards from the beginning")
	fs.Int64Var(&q.Before, "before", 0, "page backwards: entries before this seq")
	fs.IntVar(&q.Limit, "limit", 0, fmt.Sprintf("entries per page (default %d, at most %d)", history.DefaultListLimit, history.MaxListLimit))
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	for _, r := range roles {
		for _, part := range strings.Split(r, ",") {
			if part = strings.TrimSpace(part); part != "" {
				q.Roles = append(q.Roles, history.Role(part))
			}
		}
	}
	// --after 0 differs from no --after (history.ListQuery.GivenZero).
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := q.GivenZero(given["after"], given["before"]); err != nil {
		fmt.Fprintf(stderr, "notesoup history list: %v\n", err)
		return 2
	}
	if err := q.Validate(); err != nil {
		fmt.Fprintf(stderr, "notesoup history list: %v\n", err)
		return 2
	}
	s, proj, ro, done, err := openSession(*sel, roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup history list: %v\n", err)
		return 1
	}
	defer done()
	sessArg := s.Harness + ":" + s.ID
	ro.ListHint = func(n history.ListQuery) string { return histListCommand(sessArg, n) }
	if *asJSON {
		ro.Answer = cliJSONAnswer(sessArg)
	}
	page, err := history.List(proj.Events, q, ro)
	if err != nil {
		// The session's notice accompanies errors too.
		fmt.Fprintf(stderr, "%s\n", termsafe.Sanitize(ro.Wrap("notesoup history list: "+err.Error())))
		return 1
	}
	if *asJSON {
		histWriteJSON(stdout, struct {
			Session string `json:"session"`
			history.Page
		}{sessArg, page})
		return 0
	}
	// Transcript text is untrusted: a person's terminal must not run the
	// escape sequences a tool output or a prompt may carry.
	fmt.Fprint(stdout, termsafe.Sanitize(page.Text))
	return 0
}

// histListCommand renders the CLI command for another page.
func histListCommand(sess string, q history.ListQuery) string {
	parts := []string{"notesoup history list --session " + sess}
	if q.Query != "" {
		parts = append(parts, "--query "+strconv.Quote(q.Query))
	}
	for _, r := range q.Roles {
		parts = append(parts, "--role "+string(r))
	}
	if q.Window != "" {
		parts = append(parts, "--window "+strconv.Quote(q.Window))
	}
	if q.After > 0 {
		parts = append(parts, fmt.Sprintf("--after %d", q.After))
	}
	if q.Oldest {
		parts = append(parts, "--oldest")
	}
	if q.Before > 0 {
		parts = append(parts, fmt.Sprintf("--before %d", q.Before))
	}
	if q.Limit > 0 {
		parts = append(parts, fmt.Sprintf("--limit %d", q.Limit))
	}
	return strings.Join(parts, " ")
}

func historyRead(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newHistoryFlags("read", stderr, &roots)
	sel := fs.String("session", history.SelectorLatest, "session selector")
	var q history.ReadQuery
	fs.Int64Var(&q.Seq, "seq", 0, "address to read (as history list shows it)")
	fs.IntVar(&q.Offset, "offset", 0, "byte offset to continue from, as the footer says")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := q.Validate(); err != nil {
		fmt.Fprintf(stderr, "notesoup history read: %v\n", err)
		return 2
	}
	s, proj, ro, done, err := openSession(*sel, roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup history read: %v\n", err)
		return 1
	}
	defer done()
	sessArg := s.Harness + ":" + s.ID
	ro.ReadHint = func(seq int64, off int) string {
		return fmt.Sprintf("notesoup history read --session %s --seq %d --offset %d", sessArg, seq, off)
	}
	if *asJSON {
		ro.Answer = cliJSONAnswer(sessArg)
	}
	r, err := history.Read(proj.Events, q, ro)
	if err != nil {
		fmt.Fprintf(stderr, "%s\n", termsafe.Sanitize(ro.Wrap("notesoup history read: "+err.Error())))
		return 1
	}
	if *asJSON {
		histWriteJSON(stdout, struct {
			Session string `json:"session"`
			history.ReadResult
		}{sessArg, r})
		return 0
	}
	fmt.Fprint(stdout, termsafe.Sanitize(r.Text))
	return 0
}

func historyState(args []string, stdout, stderr io.Writer) int {
	var roots historyRoots
	fs := newHistoryFlags("state", stderr, &roots)
	sel := fs.String("session", history.SelectorLatest, "session selector")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, proj, _, done, err := openSession(*sel, roots)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup history state: %v\n", err)
		return 1
	}
	defer done()
	for _, err := range proj.Events {
		if err != nil {
			fmt.Fprintf(stderr, "notesoup history state: %v\n", err)
			return 1
		}
	}
	sum := proj.Summary()
	ord, err := history.State(sum)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup history state: %v\n", err)
		return 1
	}
	if *asJSON {
		windows := sum.Windows
		if windows == nil {
			windows = []string{} // [], not null
		}
		histWriteJSON(stdout, map[string]any{"session": s.Harness + ":" + s.ID, "window": sum.HeadWindow, "ordinal": ord, "windows": windows})
		return 0
	}
	fmt.Fprintf(stdout, "%s ordinal %d\n", termsafe.Sanitize(sum.HeadWindow), ord)
	return 0
}

// cliJSONAnswer is the size of a --json history answer: the structured
// page alone, indented (histWriteJSON), without the text. A model running
// the CLI reads all of it, so it is held to history.MaxResponseBytes like
// the text: escaping alone made pages of 40 KB and reads of 189 KB.
func cliJSONAnswer(sessionRef string) *history.Answer {
	return &history.Answer{
		// Keys, cursors and indentation, the session twice escaped, the notice.
		Reserve: 512 + 2*history.JSONLen(sessionRef) + history.NoticeReserve,
		Entry: func(e history.Entry) int {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("    ", "  ") // as histWriteJSON writes an entry
			_ = enc.Encode(e)
			return b.Len() + len("    ,") // Encode's newline ends the line
		},
		Body: history.JSONLen,
	}
}

func histWriteJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	// Transcripts are full of <, > and &: written as \u003c they would be
	// six bytes each, and harder to read.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func histStamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func histOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func histSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
