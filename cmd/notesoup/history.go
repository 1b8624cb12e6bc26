package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(&command{
		name:    "history",
		summary: "list, search and read persisted sessions of every harness",
		about:   historyAbout(),
		subs: []*command{
			{name: "sessions", summary: "the sessions of every harness, newest first", flags: func(fs *pflag.FlagSet) { new(sessionsOpts).define(fs) }, run: historySessions},
			{name: "list", summary: "one session's entries, a page at a time, optionally matching --query", flags: func(fs *pflag.FlagSet) { new(listOpts).define(fs) }, run: historyList, about: listAbout},
			{name: "read", summary: "one entry of a session in full (--seq, as list shows it)", flags: func(fs *pflag.FlagSet) { new(readOpts).define(fs) }, run: historyRead},
			{name: "state", summary: "the session's current window and its ordinal", flags: func(fs *pflag.FlagSet) { new(stateOpts).define(fs) }, run: historyState},
			searchCommand("history"),
		},
	})
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

// Type implements pflag.Value.
func (f rootFlag) Type() string { return "NAME=DIR" }

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

// Type implements pflag.Value.
func (f aliasRootFlag) Type() string { return "DIR" }

// Set implements flag.Value: each use adds one root.
func (f aliasRootFlag) Set(v string) error { f.r.add(f.harness, v); return nil }

// histMultiFlag is a repeatable string flag.
type histMultiFlag []string

// String implements flag.Value.
func (m *histMultiFlag) String() string { return strings.Join(*m, ",") }

// Type implements pflag.Value.
func (m *histMultiFlag) Type() string { return "VALUE" }

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

// historyAbout is the history command's help after its subcommands; the
// root aliases are listed from the built-in harnesses.
func historyAbout() string {
	aliases := make([]string, 0, len(builtins.Names()))
	for _, n := range builtins.Names() {
		aliases = append(aliases, "--"+n+"-root")
	}
	return fmt.Sprintf(historyAboutFormat, strings.Join(aliases, ", "))
}

const historyAboutFormat = `Roots (repeatable; default: where each harness writes, as notesoup plugins
lists them):
  --root NAME=DIR     sessions of harness NAME under DIR (any harness, an
                      external plugin's too)
  --NAME-root DIR     short for --root NAME=DIR, for the built-ins:
                      %s

Session selectors (--session): latest (default), HARNESS:latest, HARNESS:ID,
or a unique id prefix; never a path. --query is literal, case-insensitive
text. --show-secrets prints API keys, tokens and private keys verbatim
(masked by default). See docs/history-sessions.md.

Exit status: 0 done, 1 when a --query matched nothing, 2 on an error.
`

const listAbout = `Pages go newest first; --after, --before and --oldest page through, and
the footer prints the command for the next page.

Exit status: 0 done, 1 when --query matched nothing, 2 on an error.
`

// historyFlags defines the flags every history command shares: the roots,
// --show-secrets and --home.
func historyFlags(fs *pflag.FlagSet, roots *historyRoots) {
	fs.Var(rootFlag{roots}, "root", "read harness NAME's sessions under DIR instead of its defaults (repeatable; any harness)")
	for _, n := range builtins.Names() {
		fs.Var(aliasRootFlag{roots, n}, n+"-root", fmt.Sprintf("short for --root %s=DIR (repeatable)", n))
	}
	fs.BoolVar(&roots.showSecrets, "show-secrets", false, "show API keys, tokens and private keys verbatim instead of masked")
	homeFlag(fs)
}

// sessionFlag defines --session.
func sessionFlag(fs *pflag.FlagSet, sel *string) {
	fs.StringVar(sel, "session", history.SelectorLatest, "the session `SEL`: latest, HARNESS:latest, HARNESS:ID or a unique id prefix")
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

// sessionsOpts are history sessions' flags.
type sessionsOpts struct {
	roots historyRoots
	q     history.SessionQuery
	json  bool
}

func (o *sessionsOpts) define(fs *pflag.FlagSet) {
	historyFlags(fs, &o.roots)
	fs.StringVar(&o.q.Harness, "harness", "", "only this harness (`NAME`, as notesoup plugins lists it)")
	fs.SetAnnotation("harness", valuesAnnotation, builtins.Names())
	fs.StringVar(&o.q.Cwd, "cwd", "", "only sessions that ran in `DIR` or below")
	fs.StringVar(&o.q.Query, "query", "", "only sessions whose id, title or cwd holds `TEXT` (literal, case-insensitive)")
	fs.IntVar(&o.q.Limit, "limit", 50, "list at most `N` sessions (0: all)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

func historySessions(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["history"].sub("sessions"), args, stdout, stderr)
	var o sessionsOpts
	fs := newFlags("history sessions")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q; filter with --query TEXT", pos[0])
	}
	svc, done, err := historyService(o.roots)
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	ss, err := svc.Sessions(context.Background(), o.q)
	if err != nil {
		if len(ss) == 0 {
			return inv.fail(err)
		}
		// Sessions of the other harnesses are still worth printing.
		inv.warn(err.Error())
	}
	found := exitOK
	if len(ss) == 0 && o.q.Query != "" {
		found = exitNone
	}
	if o.json {
		out := make([]sessionJSON, 0, len(ss))
		for _, s := range ss {
			out = append(out, sessionJSON{Harness: s.Harness, ID: s.ID, Selector: s.Harness + ":" + s.ID, Path: s.Path,
				Cwd: s.Cwd, Title: s.Title, Started: s.Started, Updated: s.Updated, Size: s.Size})
		}
		if code := inv.jsonOut(out); code != exitOK {
			return code
		}
		return found
	}
	if len(ss) == 0 {
		fmt.Fprintln(stderr, "notesoup history sessions: no sessions")
		return found
	}
	rows := make([][]string, 0, len(ss))
	for _, s := range ss {
		rows = append(rows, []string{s.Harness + ":" + s.ID, histStamp(s.Updated), histSize(s.Size), histOrDash(shortPath(s.Cwd)), s.Title})
	}
	writeTable(stdout, []string{"SESSION", "UPDATED", "SIZE", "CWD", "TITLE"}, rows)
	return found
}

// openSession resolves a selector and prepares its projection through the
// harness plugin; query, when not "", is the one history list lists, which
// the search index may answer without a whole decode (Service.Narrowed).
// The caller runs done when finished with it.
func openSession(sel string, roots historyRoots, query string) (history.Session, history.Projection, history.RenderOptions, func(), error) {
	svc, done, err := historyService(roots)
	if err != nil {
		return history.Session{}, history.Projection{}, history.RenderOptions{}, nil, err
	}
	ctx, c := context.Background(), service.Caller{ShowSecrets: roots.showSecrets}
	o, err := svc.Open(ctx, c, sel)
	if err != nil {
		done()
		return history.Session{}, history.Projection{}, history.RenderOptions{}, nil, err
	}
	o = svc.Narrowed(ctx, c, o, query)
	return o.Session, o.Projection, o.Render, done, nil
}

// listOpts are history list's flags.
type listOpts struct {
	roots historyRoots
	sel   string
	q     history.ListQuery
	roles histMultiFlag
	json  bool
}

func (o *listOpts) define(fs *pflag.FlagSet) {
	historyFlags(fs, &o.roots)
	sessionFlag(fs, &o.sel)
	fs.StringVar(&o.q.Query, "query", "", "only entries holding `TEXT` (literal, case-insensitive)")
	fs.Var(&o.roles, "role", "only this `ROLE`: user, assistant, system, tool (repeatable or comma-separated)")
	fs.SetAnnotation("role", valuesAnnotation, []string{"user", "assistant", "system", "tool"})
	fs.StringVar(&o.q.Window, "window", "", "only this window or segment `ID`")
	fs.Int64Var(&o.q.After, "after", 0, "page forwards: entries after `SEQ` (0: from the beginning, like --oldest)")
	fs.BoolVar(&o.q.Oldest, "oldest", false, "page forwards from the beginning")
	fs.Int64Var(&o.q.Before, "before", 0, "page backwards: entries before `SEQ`")
	fs.IntVar(&o.q.Limit, "limit", 0, fmt.Sprintf("`N` entries per page (default %d, at most %d)", history.DefaultListLimit, history.MaxListLimit))
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

func historyList(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["history"].sub("list"), args, stdout, stderr)
	var o listOpts
	fs := newFlags("history list")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q; search with --query TEXT", pos[0])
	}
	q := o.q
	for _, r := range o.roles {
		for _, part := range strings.Split(r, ",") {
			if part = strings.TrimSpace(part); part != "" {
				q.Roles = append(q.Roles, history.Role(part))
			}
		}
	}
	// --after 0 differs from no --after (history.ListQuery.GivenZero).
	if err := q.GivenZero(fs.Changed("after"), fs.Changed("before")); err != nil {
		return inv.usageErr("%v", err)
	}
	if err := q.Validate(); err != nil {
		return inv.usageErr("%v", err)
	}
	s, proj, ro, done, err := openSession(o.sel, o.roots, q.Query)
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	sessArg := s.Harness + ":" + s.ID
	ro.ListHint = func(n history.ListQuery) string { return histListCommand(sessArg, n) }
	if o.json {
		ro.Answer = cliJSONAnswer(sessArg)
	}
	page, err := history.List(proj.Events, q, ro)
	if err != nil {
		// The session's notice accompanies errors too.
		return inv.failf("%s", ro.Wrap(cliWords(err.Error())))
	}
	found := exitOK
	if q.Query != "" && len(page.Entries) == 0 {
		found = exitNone
	}
	if o.json {
		histWriteJSON(stdout, struct {
			Session string `json:"session"`
			history.Page
		}{sessArg, page})
		return found
	}
	// Transcript text is untrusted: a person's terminal must not run the
	// escape sequences a tool output or a prompt may carry.
	fmt.Fprint(stdout, termsafe.Sanitize(cliPageText(page.Text)))
	return found
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

// readOpts are history read's flags.
type readOpts struct {
	roots historyRoots
	sel   string
	q     history.ReadQuery
	json  bool
}

func (o *readOpts) define(fs *pflag.FlagSet) {
	historyFlags(fs, &o.roots)
	sessionFlag(fs, &o.sel)
	fs.Int64Var(&o.q.Seq, "seq", 0, "the entry to read: its address `N` as history list shows it (#N); required")
	fs.IntVar(&o.q.Offset, "offset", 0, "continue from byte `B`, as the footer of a cut answer says")
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

func historyRead(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["history"].sub("read"), args, stdout, stderr)
	var o readOpts
	fs := newFlags("history read")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q; name the entry with --seq N", pos[0])
	}
	if !fs.Changed("seq") {
		return inv.usageErr("--seq is required: the address of the entry to read, as notesoup history list shows it (#N)")
	}
	if err := o.q.Validate(); err != nil {
		return inv.usageErr("%v", err)
	}
	s, proj, ro, done, err := openSession(o.sel, o.roots, "")
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	sessArg := s.Harness + ":" + s.ID
	ro.ReadHint = func(seq int64, off int) string {
		return fmt.Sprintf("notesoup history read --session %s --seq %d --offset %d", sessArg, seq, off)
	}
	if o.json {
		ro.Answer = cliJSONAnswer(sessArg)
	}
	r, err := history.Read(proj.Events, o.q, ro)
	if err != nil {
		return inv.failf("%s", ro.Wrap(cliWords(err.Error())))
	}
	if o.json {
		histWriteJSON(stdout, struct {
			Session string `json:"session"`
			history.ReadResult
		}{sessArg, r})
		return exitOK
	}
	fmt.Fprint(stdout, termsafe.Sanitize(r.Text))
	return exitOK
}

// stateOpts are history state's flags.
type stateOpts struct {
	roots historyRoots
	sel   string
	json  bool
}

func (o *stateOpts) define(fs *pflag.FlagSet) {
	historyFlags(fs, &o.roots)
	sessionFlag(fs, &o.sel)
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

func historyState(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["history"].sub("state"), args, stdout, stderr)
	var o stateOpts
	fs := newFlags("history state")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q; name the session with --session SEL", pos[0])
	}
	s, proj, _, done, err := openSession(o.sel, o.roots, "")
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	for _, err := range proj.Events {
		if err != nil {
			return inv.fail(err)
		}
	}
	sum := proj.Summary()
	ord, err := history.State(sum)
	if err != nil {
		return inv.fail(err)
	}
	if o.json {
		windows := sum.Windows
		if windows == nil {
			windows = []string{} // [], not null
		}
		histWriteJSON(stdout, map[string]any{"session": s.Harness + ":" + s.ID, "window": sum.HeadWindow, "ordinal": ord, "windows": windows})
		return exitOK
	}
	fmt.Fprintf(stdout, "%s ordinal %d\n", termsafe.Sanitize(sum.HeadWindow), ord)
	return exitOK
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

func histOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
