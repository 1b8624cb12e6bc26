// Command gen writes shared/redact's table of gitleaks rules
// (gitleaks_rules.go) from the config/gitleaks.toml of a pinned gitleaks
// release, taken from the Go module cache (go mod download, checked against
// the checksum database like any module). It runs as `go generate
// ./shared/redact` (the pin is in shared/redact/gen.go);
// scripts/update-secret-rules.sh moves the pin to a newer release.
//
// The work is done here, once, rather than at every process start: the
// TOML is parsed, every regexp is compiled once to check it, rules that
// need a file path are dropped, and for each capture group the length of
// its format marker (the literal every match starts with, e.g. "ghp_") and
// its shortest match are worked out from the regexp's syntax tree, so the
// masker knows how much it may leave visible without parsing anything.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/notesoup/notesoup/shared/redact/internal/ac"
)

// module is the Go module gitleaks is published as.
const module = "github.com/zricethezav/gitleaks/v8"

// skipped are rules left out on purpose, with the reason printed into the
// generated file. Rules that only apply to some file names (a `path`) are
// left out by a general test, not listed here.
var skipped = map[string]string{
	// The project's own assignment rules mask the value of any name that
	// ends in password, secret, token, passphrase or a qualified key
	// (shared/redact/assign.go), with rules for quoting a transcript needs.
	// gitleaks' generic rule would also fire on "access", "auth", "api" and
	// "key" alone, which are in most code a history page shows, and its
	// regexp (a lazy 50-character prefix before the name) is among the
	// slowest in the set.
	"generic-api-key": "covered by the project's own assignment rules (assign.go); its keywords (key, api, auth, access, token) are in most code, which would run its slow regexp over nearly every event",
}

// config is the part of gitleaks.toml the masker uses. Decoding fails on
// any key not named here (see main), so a release that adds a feature
// makes the generator stop until someone decides what it means for
// masking.
type config struct {
	Title       string
	Description string
	MinVersion  string `toml:"minVersion"`
	Extend      map[string]any
	Allowlist   *allowlist  // the older single global allowlist
	Allowlists  []allowlist // global allowlists
	Rules       []rule
}

// rule is one [[rules]] entry.
type rule struct {
	ID          string
	Description string
	Path        string
	Regex       string
	SecretGroup int `toml:"secretGroup"`
	Entropy     float64
	Keywords    []string
	Tags        []string
	Allowlist   *allowlist
	Allowlists  []allowlist
	Required    []map[string]any
	SkipReport  bool `toml:"skipReport"`
}

// allowlist is a rule's or the global [[allowlists]] entry.
type allowlist struct {
	Description string
	Condition   string
	Commits     []string
	Paths       []string
	RegexTarget string `toml:"regexTarget"`
	Regexes     []string
	StopWords   []string `toml:"stopwords"`
	TargetRules []string `toml:"targetRules"`
}

func main() {
	version := flag.String("version", "", "gitleaks release to take the rules from, e.g. v8.30.1")
	src := flag.String("src", "", "directory of an unpacked gitleaks module (default: the module cache, via go mod download)")
	out := flag.String("out", "gitleaks_rules.go", "file to write the rules to")
	triggers := flag.String("triggers", "triggers.go", "Go file whose ownTriggers literal holds the project's rules' triggers")
	tables := flag.String("tables", "prefilter_tables.go", "file to write the prefilter's tables to")
	flag.Parse()
	if *version == "" {
		fatal(errors.New("-version is required"))
	}
	dir := *src
	if dir == "" {
		var err error
		if dir, err = download(*version); err != nil {
			fatal(err)
		}
	}
	code, keywords, err := generate(dir, *version)
	if err != nil {
		fatal(err)
	}
	own, err := ownTriggers(*triggers)
	if err != nil {
		fatal(err)
	}
	tab, err := prefilterTables(append(own, keywords...), *version)
	if err != nil {
		fatal(err)
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		fatal(err)
	}
	if err := os.WriteFile(*tables, tab, 0o644); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

// download fetches the module into the module cache and returns its
// directory. It runs outside any module so the project's go.mod and go.sum
// stay as they are: gitleaks is data here, not a dependency.
func download(version string) (string, error) {
	tmp, err := os.MkdirTemp("", "redact-gen")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(goCmd, "mod", "download", "-json", module+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on")
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v", module, version, err)
	}
	var info struct {
		Dir, Version, Error string
	}
	if err := json.Unmarshal(outb, &info); err != nil {
		return "", err
	}
	if info.Error != "" {
		return "", errors.New(info.Error)
	}
	if info.Version != version {
		return "", fmt.Errorf("asked for %s, the module cache has %s", version, info.Version)
	}
	return info.Dir, nil
}

// generate reads dir's config/gitleaks.toml and LICENSE and returns the
// Go source of the rule table and the keywords of the rules it holds, in
// their order.
func generate(dir, version string) ([]byte, [][]string, error) {
	license, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
	if err != nil {
		return nil, nil, err
	}
	var cfg config
	md, err := toml.DecodeFile(filepath.Join(dir, "config", "gitleaks.toml"), &cfg)
	if err != nil {
		return nil, nil, err
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, nil, fmt.Errorf("gitleaks.toml has keys the generator does not know, decide what they mean for masking first: %v", und)
	}
	if len(cfg.Extend) > 0 {
		return nil, nil, errors.New("gitleaks.toml extends another config; the generator reads one file")
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by shared/redact/internal/gen from gitleaks %s config/gitleaks.toml; DO NOT EDIT.\n\n", version)
	b.WriteString("// The rules below are data from gitleaks (https://github.com/gitleaks/gitleaks,\n")
	fmt.Fprintf(&b, "// Go module %s %s), under its license:\n//\n", module, version)
	for _, l := range strings.Split(strings.TrimRight(string(license), "\n"), "\n") {
		b.WriteString(strings.TrimRight("// "+l, " ") + "\n")
	}
	b.WriteString("\npackage redact\n\n")
	fmt.Fprintf(&b, "// gitleaksVersion is the gitleaks release the rules were taken from.\nconst gitleaksVersion = %q\n\n", version)

	var global []allowlist
	if cfg.Allowlist != nil {
		global = append(global, *cfg.Allowlist)
	}
	for _, a := range cfg.Allowlists {
		if len(a.TargetRules) > 0 {
			return nil, nil, fmt.Errorf("a global allowlist targets rules %v; the generator does not handle targetRules yet", a.TargetRules)
		}
		global = append(global, a)
	}
	b.WriteString("// gitleaksAllow are gitleaks' global allowlists: a finding of any rule\n// they allow is not masked.\n")
	b.WriteString("var gitleaksAllow = ")
	if err := writeAllowlists(&b, global); err != nil {
		return nil, nil, fmt.Errorf("global allowlist: %v", err)
	}
	b.WriteString("\n\n")

	var notes []string
	var keywords [][]string
	b.WriteString("// gitleaksRules are gitleaks' rules in its order.\nvar gitleaksRules = []glRule{\n")
	for _, r := range cfg.Rules {
		why := skipReason(r)
		if why != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", r.ID, why))
			continue
		}
		kw, err := writeRule(&b, r)
		if err != nil {
			return nil, nil, fmt.Errorf("rule %s: %v", r.ID, err)
		}
		keywords = append(keywords, kw)
	}
	b.WriteString("}\n\n")
	b.WriteString("// gitleaksSkipped are the gitleaks rules left out, and why.\nvar gitleaksSkipped = []string{\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "\t%s,\n", strconv.Quote(n))
	}
	b.WriteString("}\n")
	code, err := format.Source(b.Bytes())
	return code, keywords, err
}

// skipReason says why r is left out, or "" to keep it.
func skipReason(r rule) string {
	switch {
	case skipped[r.ID] != "":
		return skipped[r.ID]
	case r.Regex == "":
		return "matches file names only; transcripts have none"
	case r.Path != "":
		return "applies only to files named " + r.Path + "; transcript text has no file name"
	case len(r.Required) > 0:
		return "a composite rule (required rules), not supported"
	case r.SkipReport:
		return "only an auxiliary of composite rules"
	}
	return ""
}

// writeRule writes one glRule literal and returns its keywords,
// lower-cased.
func writeRule(b *bytes.Buffer, r rule) ([]string, error) {
	re, err := regexp.Compile(r.Regex)
	if err != nil {
		return nil, err
	}
	if r.SecretGroup > re.NumSubexp() {
		return nil, fmt.Errorf("secretGroup %d but only %d groups", r.SecretGroup, re.NumSubexp())
	}
	tree, err := syntax.Parse(r.Regex, syntax.Perl)
	if err != nil {
		return nil, err
	}
	groups := make([]group, re.NumSubexp()+1)
	groups[0] = measure(tree)
	walk(tree, func(n *syntax.Regexp) {
		if n.Op == syntax.OpCapture {
			groups[n.Cap] = measure(n.Sub[0])
		}
	})
	var kw []string
	for _, k := range r.Keywords {
		k = strings.ToLower(k)
		if k != "" && !slices.Contains(kw, k) {
			kw = append(kw, k)
		}
	}
	if len(kw) == 0 {
		// A rule without keywords would run its regexp over every text.
		return nil, errors.New("no keywords")
	}
	for _, k := range kw {
		for i := 0; i < len(k); i++ {
			if k[i] >= 0x80 {
				return nil, fmt.Errorf("keyword %q is not ASCII; the prefilter folds ASCII only", k)
			}
		}
	}

	var rules []allowlist
	if r.Allowlist != nil {
		rules = append(rules, *r.Allowlist)
	}
	rules = append(rules, r.Allowlists...)

	fmt.Fprintf(b, "\t{\n\t\tid: %q,\n", r.ID)
	fmt.Fprintf(b, "\t\tregex: %s,\n", goString(r.Regex))
	fmt.Fprintf(b, "\t\tkeywords: %s,\n", goStrings(kw))
	if r.Entropy != 0 {
		fmt.Fprintf(b, "\t\tentropy: %s,\n", strconv.FormatFloat(r.Entropy, 'g', -1, 64))
	}
	if r.SecretGroup != 0 {
		fmt.Fprintf(b, "\t\tsecretGroup: %d,\n", r.SecretGroup)
	} else if slices.ContainsFunc(re.SubexpNames(), func(n string) bool { return n != "" }) {
		// Named groups label alternatives of one format (jwt-base64 names
		// each JWT header field it may start with); gitleaks' secret is then
		// the first non-empty group, a dozen characters of the token, but
		// the whole token must be masked.
		b.WriteString("\t\twhole: true,\n")
	}
	b.WriteString("\t\tgroups: []glGroup{")
	for i, g := range groups {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "{%d, %d}", g.marker, g.min)
	}
	b.WriteString("},\n")
	if starts, fold, ok := leadingLiterals(tree); ok {
		fmt.Fprintf(b, "\t\tstarts: %s,\n", goStrings(starts))
		if fold {
			b.WriteString("\t\tstartsFold: true,\n")
		}
	} else if lits, before, ok := windowLiterals(tree); ok && maxLen(tree) >= 0 {
		fmt.Fprintf(b, "\t\twindow: %s,\n\t\tbefore: %d,\n", goStrings(lits), before)
	}
	if n := maxLen(tree); n >= 0 {
		fmt.Fprintf(b, "\t\tmaxLen: %d,\n", n)
	}
	if sets := requiredLiterals(tree); len(sets) > 0 {
		b.WriteString("\t\tliterals: [][]string{")
		for i, set := range sets {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strings.TrimPrefix(goStrings(set), "[]string"))
		}
		b.WriteString("},\n")
	}
	if len(rules) > 0 {
		b.WriteString("\t\tallow: ")
		if err := writeAllowlists(b, rules); err != nil {
			return nil, err
		}
		b.WriteString(",\n")
	}
	b.WriteString("\t},\n")
	return kw, nil
}

// writeAllowlists writes a []glAllow literal. Paths and commits are
// dropped (a transcript has neither): an allowlist that has only those
// allows nothing here, and one whose condition is AND with a path can
// never hold, so both are left out.
func writeAllowlists(b *bytes.Buffer, as []allowlist) error {
	b.WriteString("[]glAllow{")
	for _, a := range as {
		and := strings.EqualFold(a.Condition, "AND")
		if !and && a.Condition != "" && !strings.EqualFold(a.Condition, "OR") {
			return fmt.Errorf("unknown allowlist condition %q", a.Condition)
		}
		if and && (len(a.Paths) > 0 || len(a.Commits) > 0) {
			continue
		}
		if len(a.Regexes) == 0 && len(a.StopWords) == 0 {
			continue
		}
		for _, r := range a.Regexes {
			if _, err := regexp.Compile(r); err != nil {
				return err
			}
		}
		target := "glTargetSecret"
		switch a.RegexTarget {
		case "", "secret":
		case "match":
			target = "glTargetMatch"
		case "line":
			target = "glTargetLine"
		default:
			return fmt.Errorf("unknown regexTarget %q", a.RegexTarget)
		}
		var stop []string
		for _, w := range a.StopWords {
			// gitleaks compares stopwords with the lower-cased secret.
			stop = append(stop, strings.ToLower(w))
		}
		fmt.Fprintf(b, "{target: %s", target)
		if and {
			b.WriteString(", and: true")
		}
		if len(a.Regexes) > 0 {
			b.WriteString(", regexes: []string{")
			for i, r := range a.Regexes {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(goString(r))
			}
			b.WriteString("}")
		}
		if len(stop) > 0 {
			fmt.Fprintf(b, ", stopwords: %s", goStrings(stop))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}")
	return nil
}

// goString quotes s as a Go string literal, raw where it can be.
func goString(s string) string {
	if !strings.ContainsAny(s, "`\r") && strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// goStrings writes a []string literal.
func goStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

// walk calls f on n and every node under it.
func walk(n *syntax.Regexp, f func(*syntax.Regexp)) {
	f(n)
	for _, s := range n.Sub {
		walk(s, f)
	}
}

// group is what the masker needs to know of a capture group: marker, the
// bytes at its start that every match has in the same shape (a literal
// such as "ghp_", or alternatives of one length such as "sk"|"rk"), which
// are a format name rather than secret; min, the fewest bytes it matches.
type group struct{ marker, min int }

// measure returns n's marker and shortest match.
func measure(n *syntax.Regexp) group {
	return group{marker: markerLen(n), min: minLen(n)}
}

// markerLen is the length of n's leading fixed-shape part.
func markerLen(n *syntax.Regexp) int {
	if l, ok := fixedLen(n); ok {
		return l
	}
	switch n.Op {
	case syntax.OpCapture:
		return markerLen(n.Sub[0])
	case syntax.OpConcat:
		total := 0
		for _, s := range n.Sub {
			if l, ok := fixedLen(s); ok {
				total += l
				continue
			}
			return total + markerLen(s)
		}
		return total
	}
	return 0
}

// fixedLen reports whether n always matches a marker of one length: ASCII
// literals, classes of at most two letters (the parser turns "sk|rk" into
// "[rs]k" and a case-insensitive letter into "[Xx]"), and alternations,
// concatenations and exact repeats of those.
func fixedLen(n *syntax.Regexp) (int, bool) {
	switch n.Op {
	case syntax.OpLiteral:
		for _, r := range n.Rune {
			if r >= 0x80 {
				return 0, false
			}
		}
		return len(n.Rune), true
	case syntax.OpCharClass:
		count := 0
		for i := 0; i < len(n.Rune); i += 2 {
			if n.Rune[i+1] >= 0x80 {
				return 0, false
			}
			count += int(n.Rune[i+1]-n.Rune[i]) + 1
		}
		return 1, count <= 2
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpCapture:
		return fixedLen(n.Sub[0])
	case syntax.OpConcat:
		total := 0
		for _, s := range n.Sub {
			l, ok := fixedLen(s)
			if !ok {
				return 0, false
			}
			total += l
		}
		return total, true
	case syntax.OpAlternate:
		first := -1
		for _, s := range n.Sub {
			l, ok := fixedLen(s)
			if !ok || first >= 0 && l != first {
				return 0, false
			}
			first = l
		}
		return first, first >= 0
	case syntax.OpRepeat:
		if n.Min != n.Max {
			return 0, false
		}
		l, ok := fixedLen(n.Sub[0])
		return l * n.Min, ok
	}
	return 0, false
}

// minLen is the fewest bytes n can match (runes counted as one byte, a
// lower bound).
func minLen(n *syntax.Regexp) int {
	switch n.Op {
	case syntax.OpLiteral:
		return len(n.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLen(n.Sub[0])
	case syntax.OpRepeat:
		return n.Min * minLen(n.Sub[0])
	case syntax.OpConcat:
		t := 0
		for _, s := range n.Sub {
			t += minLen(s)
		}
		return t
	case syntax.OpAlternate:
		m := -1
		for _, s := range n.Sub {
			if l := minLen(s); m < 0 || l < m {
				m = l
			}
		}
		return max(m, 0)
	}
	return 0
}

// maxRequired bounds the literal sets requiredLiterals returns.
const maxRequired = 3

// requiredLiterals returns sets of case-sensitive literals, two bytes or
// longer, such that every match of n holds one literal of each set. The
// masker checks them (a substring search or two) before running the
// regexp, which costs far more: gitleaks' keywords are matched
// case-insensitively, some are short and common ("ey" for JWTs, "curl"),
// while the regexp itself may demand more (".ey"; "-u" or "--user").
// The longest sets are kept.
func requiredLiterals(n *syntax.Regexp) [][]string {
	var out [][]string
	for _, set := range required(n) {
		if minLenOf(set) < 2 || slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, set) }) {
			continue
		}
		out = append(out, set)
	}
	slices.SortStableFunc(out, func(a, b []string) int { return minLenOf(b) - minLenOf(a) })
	return out[:min(len(out), maxRequired)]
}

// required returns literal sets every match of n satisfies (see
// requiredLiterals), each sorted.
func required(n *syntax.Regexp) [][]string {
	switch n.Op {
	case syntax.OpLiteral:
		if n.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return [][]string{{string(n.Rune)}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(n.Sub[0])
	case syntax.OpRepeat:
		if n.Min < 1 {
			return nil
		}
		return required(n.Sub[0])
	case syntax.OpConcat:
		// Adjacent literals make one longer literal; assertions between
		// them match no text and keep them adjacent.
		// So do literals and alternatives of literals: the parser factors
		// "-u|--user" into "-" then "u|-user", which this puts back.
		var out [][]string
		run := []string{""}
		flush := func() {
			if len(run) > 1 || run[0] != "" {
				slices.Sort(run)
				out = append(out, slices.Compact(run))
			}
			run = []string{""}
		}
		for _, s := range n.Sub {
			if emptyWidth(s) {
				continue
			}
			set, ok := exactSet(s)
			if ok && len(run)*len(set) <= maxStarts {
				var ext []string
				for _, a := range run {
					for _, b := range set {
						ext = append(ext, a+b)
					}
				}
				run = ext
				continue
			}
			flush()
			if ok {
				run = set
				continue
			}
			out = append(out, required(s)...)
		}
		flush()
		return out
	case syntax.OpAlternate:
		// One literal of the union: the best set of each branch.
		var union []string
		for _, s := range n.Sub {
			sets := required(s)
			if len(sets) == 0 {
				return nil
			}
			best := sets[0]
			for _, set := range sets[1:] {
				if minLenOf(set) > minLenOf(best) {
					best = set
				}
			}
			union = append(union, best...)
		}
		slices.Sort(union)
		union = slices.Compact(union)
		if len(union) > maxStarts {
			return nil
		}
		return [][]string{union}
	}
	return nil
}

// exactSet returns the strings n matches, when they are few and n is
// made of case-sensitive literals, small classes and alternatives of them.
func exactSet(n *syntax.Regexp) ([]string, bool) {
	switch n.Op {
	case syntax.OpLiteral, syntax.OpCharClass:
		return literalSet(n)
	case syntax.OpCapture:
		return exactSet(n.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, s := range n.Sub {
			set, ok := exactSet(s)
			if !ok {
				return nil, false
			}
			out = append(out, set...)
		}
		return out, len(out) <= maxStarts
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range n.Sub {
			if emptyWidth(s) {
				continue
			}
			set, ok := exactSet(s)
			if !ok || len(out)*len(set) > maxStarts {
				return nil, false
			}
			var ext []string
			for _, a := range out {
				for _, b := range set {
					ext = append(ext, a+b)
				}
			}
			out = ext
		}
		return out, true
	}
	return nil, false
}

// minLenOf is the length of the shortest string of set.
func minLenOf(set []string) int {
	m := -1
	for _, s := range set {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return max(m, 0)
}

// maxStarts bounds the literals leadingLiterals returns.
const maxStarts = 16

// leadingLiterals returns ASCII literals, two bytes or longer, one of
// which starts every match of n (after empty-width assertions such as \b),
// and whether they are matched case-insensitively (then lower-cased), or
// false. The masker then runs the regexp only anchored at their
// occurrences instead of over the whole text: Go's regexp finds a literal
// prefix fast by itself, but not one behind \b, case-folded or in an
// alternation (vault's "hvs."|"s.", whose "s." ends half the sentences of
// a transcript).
func leadingLiterals(n *syntax.Regexp) ([]string, bool, bool) {
	lits, fold, ok := leading(n)
	if !ok || len(lits) == 0 || minLenOf(lits) < 2 {
		return nil, false, false
	}
	slices.Sort(lits)
	return slices.Compact(lits), fold, true
}

// leading returns the literals every match of n starts with, extended
// over the literals and small classes that follow them.
func leading(n *syntax.Regexp) ([]string, bool, bool) {
	if set, fold, ok := alts(n); ok {
		return set, fold, true
	}
	switch n.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return leading(n.Sub[0])
	case syntax.OpRepeat:
		if n.Min < 1 {
			return nil, false, false
		}
		return leading(n.Sub[0])
	case syntax.OpAlternate:
		var out []string
		anyFold := false
		for _, s := range n.Sub {
			l, fold, ok := leading(s)
			if !ok {
				return nil, false, false
			}
			out = append(out, l...)
			anyFold = anyFold || fold
		}
		if anyFold {
			out = lower(out)
		}
		return out, anyFold, len(out) <= maxStarts
	case syntax.OpConcat:
		i := 0
		for i < len(n.Sub) && emptyWidth(n.Sub[i]) {
			i++
		}
		if i == len(n.Sub) {
			return nil, false, false
		}
		lits, fold, ok := leading(n.Sub[i])
		if !ok {
			return nil, false, false
		}
		if _, _, exact := alts(n.Sub[i]); !exact {
			return lits, fold, true
		}
		// Extend by what must follow: literals and small classes, while
		// the set stays small.
		for _, s := range n.Sub[i+1:] {
			if emptyWidth(s) {
				continue
			}
			next, f, ok := alts(s)
			if ok && len(lits)*len(next) <= maxStarts {
				lits, fold = cross(lits, next, fold, f), fold || f
				continue
			}
			// Not a fixed string, but it may start with one: "A" then
			// "3T[A-Z0-9]"|"KIA"|… gives "A3T", "AKIA", ….
			if next, f, ok := leading(s); ok && len(lits)*len(next) <= maxStarts {
				lits, fold = cross(lits, next, fold, f), fold || f
			}
			break
		}
		return lits, fold, true
	}
	return nil, false, false
}

// alts returns the strings n matches, when they are few and n is made of
// ASCII literals, small classes and alternatives and concatenations of
// them, and whether they match case-insensitively (then they are
// lower-cased; a case-insensitive match is a superset of the exact one).
func alts(n *syntax.Regexp) ([]string, bool, bool) {
	switch n.Op {
	case syntax.OpLiteral:
		for _, r := range n.Rune {
			if r >= 0x80 {
				return nil, false, false
			}
		}
		if n.Flags&syntax.FoldCase != 0 {
			return []string{strings.ToLower(string(n.Rune))}, true, true
		}
		return []string{string(n.Rune)}, false, true
	case syntax.OpCharClass:
		set, ok := literalSet(n)
		return set, false, ok
	case syntax.OpCapture:
		return alts(n.Sub[0])
	case syntax.OpAlternate:
		var out []string
		anyFold := false
		for _, s := range n.Sub {
			set, fold, ok := alts(s)
			if !ok {
				return nil, false, false
			}
			out = append(out, set...)
			anyFold = anyFold || fold
		}
		if anyFold {
			out = lower(out)
		}
		return out, anyFold, len(out) <= maxStarts
	case syntax.OpConcat:
		out, fold := []string{""}, false
		for _, s := range n.Sub {
			if emptyWidth(s) {
				continue
			}
			set, f, ok := alts(s)
			if !ok || len(out)*len(set) > maxStarts {
				return nil, false, false
			}
			out, fold = cross(out, set, fold, f), fold || f
		}
		return out, fold, true
	}
	return nil, false, false
}

// cross returns every a+b, lower-cased when either side is matched
// case-insensitively.
func cross(as, bs []string, foldA, foldB bool) []string {
	var out []string
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	if foldA || foldB {
		out = lower(out)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// lower lower-cases every string of ss, dropping duplicates.
func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// windowLiterals returns literals (lower-case, matched
// case-insensitively) one of which every match of n holds, and the most
// bytes before it in a match, or false: for a concatenation, its first
// part made of literals three bytes or longer (or holding such a part),
// all before it bounded; for an alternation, the union of its branches'. The masker then runs the
// regexp only on windows around their occurrences. That is gitleaks' form
// for a service's keys, `(?i)[\w.-]{0,50}?(?:linear)…`: a name, an
// operator, a value. Go's regexp has nothing to skip to in such a regexp
// and steps its automaton over every byte, slowly, and "linear" is a
// common word.
func windowLiterals(n *syntax.Regexp) ([]string, int, bool) {
	switch n.Op {
	case syntax.OpCapture:
		return windowLiterals(n.Sub[0])
	case syntax.OpAlternate:
		var out []string
		most := 0
		for _, s := range n.Sub {
			lits, before, ok := windowLiterals(s)
			if !ok {
				return nil, 0, false
			}
			out = append(out, lits...)
			most = max(most, before)
		}
		return lower(out), most, len(out) <= maxStarts
	case syntax.OpConcat:
		before := 0
		for _, s := range n.Sub {
			if set, _, ok := alts(s); ok && minLenOf(set) >= 3 {
				return lower(set), before, true
			}
			if lits, b, ok := windowLiterals(s); ok {
				return lits, before + b, true
			}
			l := maxLen(s)
			if l < 0 {
				return nil, 0, false
			}
			before += l
		}
	}
	return nil, 0, false
}

// literalSet returns the strings n matches when it is a case-sensitive
// ASCII literal or a class of at most four ASCII bytes.
func literalSet(n *syntax.Regexp) ([]string, bool) {
	switch n.Op {
	case syntax.OpLiteral:
		if n.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		for _, r := range n.Rune {
			if r >= 0x80 {
				return nil, false
			}
		}
		return []string{string(n.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i < len(n.Rune); i += 2 {
			if n.Rune[i+1] >= 0x80 || n.Rune[i+1]-n.Rune[i] > 4 {
				return nil, false
			}
			for r := n.Rune[i]; r <= n.Rune[i+1]; r++ {
				out = append(out, string(r))
			}
		}
		return out, len(out) > 0 && len(out) <= 4
	}
	return nil, false
}

// emptyWidth reports whether n is an assertion that matches no text.
func emptyWidth(n *syntax.Regexp) bool {
	switch n.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return true
	}
	return false
}

// maxLen is the most bytes n can match, or -1 when that is unbounded.
func maxLen(n *syntax.Regexp) int {
	switch n.Op {
	case syntax.OpLiteral:
		t := 0
		for _, r := range n.Rune {
			if n.Flags&syntax.FoldCase != 0 {
				// A folded letter may match a longer rune (K, the Kelvin
				// sign, for k).
				t += utf8.UTFMax
			} else {
				t += utf8.RuneLen(r)
			}
		}
		return t
	case syntax.OpCharClass:
		if len(n.Rune) == 0 {
			return 0
		}
		return utf8.RuneLen(min(n.Rune[len(n.Rune)-1], utf8.MaxRune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture:
		return maxLen(n.Sub[0])
	case syntax.OpQuest:
		return maxLen(n.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		if n.Max < 0 {
			return -1
		}
		l := maxLen(n.Sub[0])
		if l < 0 {
			return -1
		}
		return l * n.Max
	case syntax.OpConcat:
		t := 0
		for _, s := range n.Sub {
			l := maxLen(s)
			if l < 0 {
				return -1
			}
			t += l
		}
		return t
	case syntax.OpAlternate:
		m := 0
		for _, s := range n.Sub {
			l := maxLen(s)
			if l < 0 {
				return -1
			}
			m = max(m, l)
		}
		return m
	}
	return 0
}

// ownTriggers reads the ownTriggers literal of the Go file path: a
// [][]string of string literals (shared/redact/triggers.go).
func ownTriggers(path string) ([][]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if len(v.Names) != 1 || v.Names[0].Name != "ownTriggers" || len(v.Values) != 1 {
				continue
			}
			outer, ok := v.Values[0].(*ast.CompositeLit)
			if !ok {
				return nil, fmt.Errorf("%s: ownTriggers is not a literal", path)
			}
			var sets [][]string
			for _, e := range outer.Elts {
				inner, ok := e.(*ast.CompositeLit)
				if !ok {
					return nil, fmt.Errorf("%s: an ownTriggers element is not a literal", path)
				}
				var set []string
				for _, x := range inner.Elts {
					lit, ok := x.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return nil, fmt.Errorf("%s: an ownTriggers trigger is not a string literal", path)
					}
					t, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					set = append(set, t)
				}
				sets = append(sets, set)
			}
			return sets, nil
		}
	}
	return nil, fmt.Errorf("%s: no ownTriggers", path)
}

// prefilterTables returns the Go source of the prefilter's tables for the
// rules' triggers, in rule order (the project's rules, then gitleaks').
func prefilterTables(triggers [][]string, version string) ([]byte, error) {
	a, err := ac.Build(triggers)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by shared/redact/internal/gen from triggers.go and gitleaks %s keywords; DO NOT EDIT.\n\n", version)
	b.WriteString("package redact\n\n")
	fmt.Fprintf(&b, "// prefilter finds which of the %d rules' triggers a text holds (%d states).\n", len(triggers), len(a.Delta)/int(a.Stride))
	b.WriteString("var prefilter = acDFA{\n\tclass: [256]uint8{")
	for i, c := range a.Class {
		if i%32 == 0 {
			b.WriteString("\n\t\t")
		}
		fmt.Fprintf(&b, "%d, ", c)
	}
	fmt.Fprintf(&b, "\n\t},\n\tstride: %d,\n\tdelta: prefilterDelta[:],\n\toutFrom: %d,\n\tout: prefilterOut[:],\n\tmaxLen: %d,\n}\n\n", a.Stride, a.OutFrom, a.MaxLen)
	b.WriteString("// prefilterDelta is the prefilter's transition table.\nvar prefilterDelta = [...]uint32{")
	for i, d := range a.Delta {
		if i%int(a.Stride) == 0 {
			b.WriteString("\n\t")
		}
		fmt.Fprintf(&b, "%d,", d)
	}
	b.WriteString("\n}\n\n// prefilterOut are the rules of the states that end a trigger.\nvar prefilterOut = [...]ruleSet{")
	for _, o := range a.Out {
		b.WriteString("\n\t{")
		for w, x := range o {
			if w > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%#x", x)
		}
		b.WriteString("},")
	}
	b.WriteString("\n}\n")
	return format.Source(b.Bytes())
}
