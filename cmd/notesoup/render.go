package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"
)

// Colour: matches are highlighted as ripgrep highlights them (bold red),
// session names as it shows file names (magenta).
const (
	sgrMatch   = "\x1b[1;31m"
	sgrSession = "\x1b[35m"
	sgrReset   = "\x1b[0m"
)

// colorFlag defines --color auto|always|never.
func colorFlag(fs *pflag.FlagSet) {
	fs.String("color", "auto", "highlight matches: `WHEN` is auto (on a terminal, unless NO_COLOR is set), always or never")
	fs.SetAnnotation("color", valuesAnnotation, []string{"auto", "always", "never"})
}

// useColor decides --color for w: always and never are what they say; auto
// is colour on a terminal unless NO_COLOR is set to anything but "" (see
// no-color.org), and plain text into a pipe or a file.
func useColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		if os.Getenv("NO_COLOR") != "" {
			return false, nil
		}
		return isTerminal(w), nil
	}
	return false, fmt.Errorf("--color %q: use auto, always or never", mode)
}

// isTerminal reports whether w is a terminal (not a pipe, a file or
// /dev/null, which is a character device too).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// paint wraps s in the SGR sequence when on.
func paint(on bool, sgr, s string) string {
	if !on || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// highlight marks every occurrence of query in s (already made inert for a
// terminal): case-insensitively (simple Unicode folding, as the search
// matches) unless caseSensitive.
func highlight(s, query string, caseSensitive, on bool) string {
	if !on || query == "" {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if end := matchAt(s, i, query, caseSensitive); end > i {
			b.WriteString(s[last:i])
			b.WriteString(sgrMatch + s[i:end] + sgrReset)
			i, last = end, end
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	b.WriteString(s[last:])
	return b.String()
}

// matchAt returns the end of query matched in s at byte i, or -1.
func matchAt(s string, i int, query string, caseSensitive bool) int {
	if caseSensitive {
		if strings.HasPrefix(s[i:], query) {
			return i + len(query)
		}
		return -1
	}
	j := i
	for _, qr := range query {
		if j >= len(s) {
			return -1
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if !equalFold(r, qr) {
			return -1
		}
		j += n
	}
	return j
}

// equalFold reports whether a and b are the same letter under simple case
// folding.
func equalFold(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

// shortPath shows p relative to the user's home as ~/…, which is how people
// read their own paths; others are left as they are.
func shortPath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || p == "" {
		return p
	}
	rel, err := filepath.Rel(home, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return p
	}
	if rel == "." {
		return "~"
	}
	return "~" + string(filepath.Separator) + rel
}

// histStamp is a time as the human output shows it: in the local zone, to
// the minute (--json keeps the exact RFC 3339 time).
func histStamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// histSize is a byte count with its unit (binary multiples, as du -h).
func histSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// plural is "1 entry", "2 entries": n and the noun's right form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// cliWordsRules rewrite what the shared layers say in the words of the
// model's tools (their names, argument=value) into the CLI's commands and
// flags. The shared messages serve the MCP tools and the helper protocol
// too, which is why they are mapped here, at the CLI's boundary; a test
// drives each one through the CLI and checks no tool word is left.
// They are compiled on first use, not at start: every command pays for
// what runs at start, and most never print a shared message.
var cliWordsRules = sync.OnceValue(func() []cliRule {
	rules := make([]cliRule, len(cliWordsText))
	for i, r := range cliWordsText {
		rules[i] = cliRule{regexp.MustCompile(r[0]), r[1]}
	}
	return rules
})

// cliRule is one compiled rewrite of cliWordsRules.
type cliRule struct {
	re   *regexp.Regexp
	with string
}

// cliWordsText are cliWordsRules' patterns and replacements.
var cliWordsText = [][2]string{
	{`\b(history_list|history_read|history_state): `, ""},
	{`\bcall notes_list\b`, "run notesoup notes list"},
	{`\buse history_list\b`, "use notesoup history list"},
	{`\bfrom history_list\b`, "from notesoup history list"},
	{`\bnotes_(list|read|write|edit|delete)\b`, "notesoup notes $1"},
	{`\bhistory_(list|read)\b`, "notesoup history $1"},
	{`\bpass allow_empty=true \(CLI: --allow-empty\)`, "pass --allow-empty"},
	{`\bold_text\b`, "--old"},
	{`\bnew_text\b`, "--new"},
	{`\bgive from <= to\b`, "give --from <= --to"},
	{`\bfrom and to are 1-based line numbers and offset a byte offset\b`, "--from and --to are 1-based line numbers and --offset a byte offset"},
	{`\bgive from or offset, not both: offset continues\b`, "give --from or --offset, not both: --offset continues"},
	{`\bwithout from, to or offset\b`, "without --from, --to or --offset"},
	{`\bgive a larger to or none\b`, "give a larger --to or none"},
	{`\bagain without offset\b`, "again without --offset"},
	{`\bbefore=0 names no page\b`, "--before 0 names no page"},
	{`\bomit before for the newest page, or give after=0 or oldest\b`, "omit --before for the newest page, or give --after 0 or --oldest"},
	{`\bafter and before are seq cursors\b`, "--after and --before are seq cursors"},
	{`\bgive either after/oldest \(page forwards\) or before \(page backwards\)`, "give either --after/--oldest (page forwards) or --before (page backwards)"},
	{`\boldest starts at the beginning; it cannot be combined with after\b`, "--oldest starts at the beginning; it cannot be combined with --after"},
	{`\blimit must be\b`, "--limit must be"},
	{`\bquery must be one line\b`, "--query must be one line"},
	{`\bseq must be a positive address\b`, "--seq must be a positive address"},
	{`\boffset must be >= 0\b`, "--offset must be >= 0"},
	{`\b(from|to|offset|after|before|seq|limit)=(-?\d+)`, "--$1 $2"},
	{`\b1 entries\b`, "1 entry"},
}

// pageHeader is the first line of a history list page as the shared layer
// writes it for the model.
var pageHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^history_list: (\d+) entries`) })

// cliPageText rewrites a history list page's header for the CLI ("3
// entries", "1 entry"). Only the header: the entries are transcript text,
// shown as written.
func cliPageText(s string) string {
	loc := pageHeader().FindStringSubmatchIndex(s)
	if loc == nil {
		return s
	}
	var n int
	fmt.Sscan(s[loc[2]:loc[3]], &n)
	return s[:loc[0]] + plural(n, "entry", "entries") + s[loc[1]:]
}

// cliWords rewrites a message of the shared layers into the CLI's words
// (cliWordsRules).
func cliWords(s string) string {
	for _, r := range cliWordsRules() {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}
