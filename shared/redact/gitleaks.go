package redact

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// This file applies gitleaks' rules (gitleaks_rules.go) as gitleaks does,
// with what a transcript lacks left out: a rule runs only on a text that
// holds one of its keywords, its secret is its secretGroup (or the first
// group that matched, or the whole match), a secret at or under the rule's
// entropy threshold is no finding, nor one the global or the rule's
// allowlists allow by regexp or stopword. Allowlists of file paths and
// commits, and rules that apply only to some file names, have nothing to
// act on here and were left out by the generator.

// glRule is one gitleaks rule, as the generator writes it.
type glRule struct {
	id    string
	regex string
	// literals are sets of case-sensitive substrings, one of each set in
	// every match, where the regexp demands more of the text than the
	// keywords ("." + "ey" for a JWT; "-u" or "--user" in a curl command):
	// checked before the regexp runs, which costs far more.
	literals [][]string
	keywords []string
	// starts are literals one of which starts every match (after \b and
	// the like): the regexp then runs anchored at their occurrences only
	// (see matchesAt), not over the whole text.
	starts []string
	// startsFold is true when starts are matched case-insensitively (they
	// are then lower-case).
	startsFold bool
	// window are lower-case literals one of which every match holds,
	// case-insensitively, at most before bytes from its start: the regexp
	// then runs only on windows around their occurrences (see windowed).
	window []string
	before int
	// maxLen is the most bytes a match can take (0: unbounded), so the
	// anchored regexp runs on a window rather than the rest of the text
	// (the backtracker Go picks for short inputs clears a bit per byte and
	// instruction before it starts).
	maxLen int
	// entropy is the Shannon entropy (bits per character) a secret must
	// exceed, or 0.
	entropy     float64
	secretGroup int
	// whole masks the whole match rather than gitleaks' secret group: the
	// rule's groups only label alternatives of one format.
	whole bool
	// groups describes each capture group, the whole match first.
	groups []glGroup
	allow  []glAllow

	// once makes fn, the finder, on the rule's first use: most rules
	// never fire in a process.
	once sync.Once
	fn   func(string) []span
}

// spans returns the spans r masks in s (the caller checks the keywords).
func (r *glRule) spans(s string) []span {
	r.once.Do(func() { r.fn = r.find() })
	return r.fn(s)
}

// glGroup describes a capture group: marker, how many bytes at its start
// are a format marker every match has ("ghp_", "sk_live_"), not secret;
// min, the fewest bytes it matches.
type glGroup struct{ marker, min int }

// glTarget is what an allowlist's regexps are matched against.
type glTarget int

// The allowlist targets of gitleaks' regexTarget.
const (
	glTargetSecret glTarget = iota // the secret (the default)
	glTargetMatch                  // the rule's whole match
	glTargetLine                   // the line(s) of the match
)

// glAllow is an allowlist: a finding is allowed when one of its regexps
// matches the target or the secret holds one of its stopwords (both, when
// and is set and both are given).
type glAllow struct {
	target    glTarget
	and       bool
	regexes   []string
	stopwords []string // lower-case
}

// compiledAllow is an allowlist with its regexps compiled on first use
// (findings are rare; most processes never need them).
type compiledAllow struct {
	glAllow
	res []func() *regexp.Regexp
}

func compileAllows(as []glAllow) []compiledAllow {
	out := make([]compiledAllow, len(as))
	for i, a := range as {
		out[i].glAllow = a
		for _, r := range a.regexes {
			out[i].res = append(out[i].res, lazyRegexp(r))
		}
	}
	return out
}

// globalAllows are gitleaks' global allowlists, compiled.
var globalAllows = sync.OnceValue(func() []compiledAllow { return compileAllows(gitleaksAllow) })

// find returns a finder for r: its regexp compiled on first use, run only
// where r's literal occurs (the caller checks the keywords).
func (r *glRule) find() func(string) []span {
	re := lazyRegexp(r.regex)
	var at *anchored
	if len(r.starts) > 0 {
		at = newAnchored(r.regex, r.starts, r.startsFold, r.maxLen)
	}
	allows := sync.OnceValue(func() []compiledAllow { return compileAllows(r.allow) })
	return func(s string) []span {
		for _, set := range r.literals {
			if !containsAny(s, set) {
				return nil
			}
		}
		var ms [][]int
		switch {
		case at != nil:
			ms = at.findAll(s)
		case len(r.window) > 0 && r.maxLen > 0:
			ms = windowed(re(), s, r.window, r.before, r.maxLen)
		default:
			ms = re().FindAllStringSubmatchIndex(s, -1)
		}
		var out []span
		for _, m := range ms {
			g := r.secretGroupOf(m)
			from, to := m[2*g], m[2*g+1]
			if from < 0 || from == to {
				continue
			}
			if g == 0 {
				// gitleaks trims newlines off a whole match.
				for from < to && s[from] == '\n' {
					from++
				}
				for to > from && s[to-1] == '\n' {
					to--
				}
			}
			secret := s[from:to]
			if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
				continue
			}
			if allowed(globalAllows(), s, m, secret) || allowed(allows(), s, m, secret) {
				continue
			}
			if r.whole {
				g, from, to = 0, m[0], m[1]
			}
			out = append(out, span{from + r.keep(g, s[from:to]), to})
		}
		return out
	}
}

// secretGroupOf is the group gitleaks takes the secret from: the rule's
// secretGroup, else the first group that matched something, else the
// whole match.
func (r *glRule) secretGroupOf(m []int) int {
	if r.secretGroup > 0 {
		return r.secretGroup
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return g
		}
	}
	return 0
}

// keep is how many bytes of group g's match secret stay visible: its
// format marker, and KeepChars more where at least 16 characters stay
// hidden in the shortest secret of the format.
func (r *glRule) keep(g int, secret string) int {
	gr := r.groups[g]
	k := gr.marker
	if gr.min-gr.marker-KeepChars >= 16 {
		k += KeepChars
	}
	if k >= len(secret) {
		return 0
	}
	for k > 0 && !utf8.RuneStart(secret[k]) {
		k--
	}
	return k
}

// allowed reports whether one of the allowlists as allows the finding of
// match m in s whose secret is secret.
func allowed(as []compiledAllow, s string, m []int, secret string) bool {
	for _, a := range as {
		target := secret
		switch a.target {
		case glTargetMatch:
			target = s[m[0]:m[1]]
		case glTargetLine:
			start := strings.LastIndexByte(s[:m[0]], '\n') + 1
			end := len(s)
			if nl := strings.IndexByte(s[m[1]:], '\n'); nl >= 0 {
				end = m[1] + nl
			}
			target = s[start:end]
		}
		byRegex := false
		for _, re := range a.res {
			if re().MatchString(target) {
				byRegex = true
				break
			}
		}
		byStopword := false
		if len(a.stopwords) > 0 {
			l := strings.ToLower(secret)
			for _, w := range a.stopwords {
				if strings.Contains(l, w) {
					byStopword = true
					break
				}
			}
		}
		if a.and {
			if (len(a.res) == 0 || byRegex) && (len(a.stopwords) == 0 || byStopword) {
				return true
			}
		} else if byRegex || byStopword {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' measure of a secret: the Shannon entropy of
// its characters, with frequencies taken over its length in bytes as
// gitleaks does.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := make(map[rune]int, 64)
	for _, c := range s {
		counts[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// anchored finds a regexp's matches by trying it only where one of the
// literals every match starts with occurs. Go's regexp skips to a literal
// prefix by itself, but not to one behind an assertion (\b) or to one of
// several, and otherwise steps its automaton over every byte; a gitleaks
// keyword such as "s." (Vault tokens) is in most texts, so that would run
// over most of every history page.
type anchored struct {
	starts []string
	fold   bool
	maxLen int
	// first matches at the start of the text; later matches at the text
	// after one byte of context, which it consumes, so assertions at the
	// start of the match (\b, (?m)^, ^) see the real byte before it.
	first, later func() *regexp.Regexp
}

func newAnchored(expr string, starts []string, fold bool, maxLen int) *anchored {
	return &anchored{
		starts: starts,
		fold:   fold,
		maxLen: maxLen,
		first:  lazyRegexp(`^(?:` + expr + `)`),
		later:  lazyRegexp(`^(?s:.)(?:` + expr + `)`),
	}
}

// findAll returns what the regexp's FindAllStringSubmatchIndex would: its
// leftmost-first matches, each where the previous one ended or later.
// Every match starts at an occurrence of a start literal, so trying those
// in order, anchored, finds the same ones: the leftmost-first match at a
// position is the same whether the search began there or earlier.
func (a *anchored) findAll(s string) [][]int {
	var out [][]int
	next := make([]int, len(a.starts)) // next occurrence of each literal, from pos
	index := indexFrom
	if a.fold {
		index = indexFold
	}
	for i, l := range a.starts {
		next[i] = index(s, l, 0)
	}
	for pos := 0; ; {
		p := -1
		for i, l := range a.starts {
			if next[i] >= 0 && next[i] < pos {
				next[i] = index(s, l, pos)
			}
			if next[i] >= 0 && (p < 0 || next[i] < p) {
				p = next[i]
			}
		}
		if p < 0 {
			return out
		}
		// A match is at most maxLen bytes: the window ends a byte past that,
		// so every assertion at a match's end (\b, $) still sees the byte
		// after it, and no match can reach the window's end to take it for
		// the text's.
		end := len(s)
		if a.maxLen > 0 {
			end = min(end, p+a.maxLen+1)
		}
		var m []int
		if p == 0 {
			m = a.first().FindStringSubmatchIndex(s[:end])
		} else if m = a.later().FindStringSubmatchIndex(s[p-1 : end]); m != nil {
			for i := range m {
				if m[i] >= 0 {
					m[i] += p - 1
				}
			}
			m[0] = p
		}
		if m == nil {
			pos = p + 1
			continue
		}
		out = append(out, m)
		pos = max(m[1], p+1)
	}
}

// indexFrom is strings.Index of sub in s from from, as an index into s.
func indexFrom(s, sub string, from int) int {
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}

// containsAny reports whether s holds one of subs.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// indexFold is indexFrom for a lower-case ASCII sub, matched as a
// case-insensitive regexp matches it: ASCII case, and K (the Kelvin sign)
// for k and ſ (long s) for s, as Go's case folding has them.
func indexFold(s, sub string, from int) int {
	c0 := sub[0]
	for i := from; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != c0 && !(c == 0xe2 && c0 == 'k') && !(c == 0xc5 && c0 == 's') {
			continue
		}
		if foldPrefixLen(s[i:], sub) > 0 {
			return i
		}
	}
	return -1
}

// foldPrefixLen returns the length of the prefix of s that matches the
// lower-case ASCII word w case-insensitively (see indexFold), or 0.
func foldPrefixLen(s, w string) int {
	i := 0
	for k := 0; k < len(w); k++ {
		switch {
		case i < len(s) && s[i] < 0x80 && (s[i] == w[k] || s[i]|0x20 == w[k] && s[i] >= 'A' && s[i] <= 'Z'):
			i++
		case w[k] == 'k' && strings.HasPrefix(s[i:], "\u212a"):
			i += len("\u212a")
		case w[k] == 's' && strings.HasPrefix(s[i:], "\u017f"):
			i += len("\u017f")
		default:
			return 0
		}
	}
	return i
}

// windowed returns what re.FindAllStringSubmatchIndex(s, -1) would, for a
// regexp every match of which holds one of lits (lower-case, matched
// case-insensitively) starting at most before bytes after the match's
// start, and is at most maxLen bytes long. It runs re only on windows
// around the literals' occurrences, from a byte more than before ahead of
// one to a byte past maxLen after it, merged where they meet. That finds
// the same matches: every match of the text holds an occurrence and so
// lies inside its window with a byte to spare on each side, which is all
// an assertion at its ends reads; and every match inside a window holds an
// occurrence of that window's (one ahead of its first would be too far
// from the match's start, one past its last would have merged the next
// window in), so it starts no later than the last occurrence and ends,
// whichever way it matches, before the window does: the window cut nothing
// it reads.
func windowed(re *regexp.Regexp, s string, lits []string, before, maxLen int) [][]int {
	var occ []int
	for _, l := range lits {
		for i := indexFold(s, l, 0); i >= 0; i = indexFold(s, l, i+1) {
			occ = append(occ, i)
		}
	}
	if occ == nil {
		return nil
	}
	slices.Sort(occ)
	var out [][]int
	for k := 0; k < len(occ); {
		lo, hi := max(occ[k]-before-1, 0), min(occ[k]+maxLen+1, len(s))
		for k++; k < len(occ) && occ[k]-before-1 <= hi; k++ {
			hi = min(occ[k]+maxLen+1, len(s))
		}
		for _, m := range re.FindAllStringSubmatchIndex(s[lo:hi], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += lo
				}
			}
			out = append(out, m)
		}
	}
	return out
}
