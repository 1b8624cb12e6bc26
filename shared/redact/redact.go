// Package redact masks secrets (API keys, tokens, private keys, password
// assignments) in text that notesoup shows from a person's transcripts.
// Transcripts record whatever a tool printed or a person pasted, and history
// output goes to a model's context and to terminals, so secrets are masked
// by default and shown only when the caller asks.
//
// Masking is deterministic: the same input always yields the same output,
// and masking twice changes nothing. A masked token keeps its format
// marker and a few characters after it (e.g. "ghp_AbCd") so two keys can
// still be told apart, followed by "[REDACTED <kind>]".
package redact

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// KeepChars is how many characters after a token's format marker stay
// visible: enough to tell two keys apart, far too few to use one (every
// masked format carries at least 60 bits in its remaining characters).
const KeepChars = 4

// Kind names a secret format.
type Kind string

// The secret formats recognised.
const (
	KindAnthropic  Kind = "anthropic key"
	KindOpenAI     Kind = "openai key"
	KindGitHub     Kind = "github token"
	KindAWS        Kind = "aws access key id"
	KindSlack      Kind = "slack token"
	KindGoogle     Kind = "google api key"
	KindJWT        Kind = "jwt"
	KindPrivateKey Kind = "private key"
	KindAssignment Kind = "secret"
)

// pattern is one secret format. The regexp's first submatch is the part
// kept verbatim (the format marker, or for an assignment the name and
// operator); the rest of the match is masked.
type pattern struct {
	kind Kind
	// re compiles the regexp on first use: the prefilters and the hand
	// matcher settle most texts without it, and compiling all ten cost
	// about 1 ms of a helper process that pages a history.
	re func() *regexp.Regexp
	// keep is how many characters of the masked part stay visible.
	keep int
	// may is true of every text re can match (the literal every match
	// holds): the regexps are run only where they can match, since Go's
	// regexp engine costs far more than a substring search and masking runs
	// over every event of a session a history call pages through.
	may func(s string) bool
	// find, when set, finds what re would (FindAllStringSubmatchIndex),
	// faster.
	find func(s string) [][]int
}

// patterns are tried in order; earlier ones win on overlap (an Anthropic
// key is also shaped like an OpenAI key). Formats with a distinctive marker
// (ghp_, AIza, AKIA, xoxb-, eyJ…) match anywhere, even glued to a preceding
// word; the "sk-" keys must start a word, or hyphenated prose ("task-of-…")
// would be masked.
//
// Each regexp is compiled on its first use (see pattern.re), not at
// package initialisation: every notesoup process links this package.
var patterns = sync.OnceValue(func() []pattern {
	return []pattern{
		{KindPrivateKey, lazyRegexp(`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\:,-]*)`), 0, holds("PRIVATE KEY-----"), nil},
		{KindAnthropic, lazyRegexp(`\b(sk-ant-)[A-Za-z0-9_-]{20,}`), KeepChars, holds("sk-ant-"), nil},
		{KindOpenAI, lazyRegexp(`\b(sk-(?:proj-|svcacct-|admin-)?)[A-Za-z0-9_-]{20,}`), KeepChars, holds("sk-"), nil},
		{KindGitHub, lazyRegexp(`(gh[pousr]_)[A-Za-z0-9]{30,}`), KeepChars, hasGitHubMarker, nil},
		{KindGitHub, lazyRegexp(`(github_pat_)[A-Za-z0-9_]{22,}`), KeepChars, holds("github_pat_"), nil},
		{KindAWS, lazyRegexp(`((?:AKIA|ASIA))[0-9A-Z]{16}\b`), KeepChars, holds("AKIA", "ASIA"), nil},
		{KindSlack, lazyRegexp(`(xox[abposr]-)[A-Za-z0-9-]{10,}`), KeepChars, holds("xox"), nil},
		{KindGoogle, lazyRegexp(`(AIza)[0-9A-Za-z_-]{35}`), KeepChars, holds("AIza"), nil},
		{KindJWT, lazyRegexp(`(eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), KeepChars, holds(".eyJ"), nil},
		// A generic assignment: the name and operator stay, the whole value
		// goes (a password has no format marker worth keeping). The value must
		// be 4+ characters so prose ("password is set") is left alone, and
		// may not start with '[' so a masked value is not masked again.
		{KindAssignment, lazyRegexp(`(?i)(\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[:=]\s*["']?)[^\s"'&,;\[\]{}()<>\\]{4,}`), 0, mayAssign, findAssignments},
	}
})

// lazyRegexp returns a function that compiles expr on its first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// holds returns a prefilter true of texts that contain one of lits.
func holds(lits ...string) func(string) bool {
	return func(s string) bool {
		for _, l := range lits {
			if strings.Contains(s, l) {
				return true
			}
		}
		return false
	}
}

// hasGitHubMarker reports whether s holds gh[pousr]_ ("gh" alone is in
// half the words of English).
func hasGitHubMarker(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "gh")
		if j < 0 {
			return false
		}
		i += j + 2
		if i+1 < len(s) && strings.IndexByte("pousr", s[i]) >= 0 && s[i+1] == '_' {
			return true
		}
	}
}

// assignWords are the assignment pattern's names, as they read once
// lower-cased with their separators ('_' or '-') and everything after the
// stem dropped: every match holds one of these, case-insensitively.
var assignWords = []string{"passw", "pwd", "secret", "api_key", "api-key", "apikey", "token", "private_key", "private-key", "privatekey"}

// mayAssign is the assignment pattern's prefilter: an operator and one of
// the names. The pattern is case-insensitive, and Go's case folding maps
// two non-ASCII letters onto ASCII ones: K (Kelvin) onto k, which
// strings.ToLower does too, and ſ (long s) onto s, which it does not.
func mayAssign(s string) bool {
	if !strings.ContainsAny(s, ":=") {
		return false
	}
	l := strings.ToLower(s)
	if strings.Contains(l, "ſ") {
		l = strings.ReplaceAll(l, "ſ", "s")
	}
	for _, w := range assignWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// markerPrefix starts every marker.
const markerPrefix = "[REDACTED "

// marker is the text that replaces a masked part.
func marker(k Kind) string { return markerPrefix + string(k) + "]" }

// Mask returns s with every recognised secret masked.
func Mask(s string) string {
	for _, p := range patterns() {
		if p.may(s) {
			s = p.mask(s)
		}
	}
	return s
}

// mask replaces every match of p in s. A match already followed by a
// marker is left alone, so masking twice changes nothing.
func (p pattern) mask(s string) string {
	var idx [][]int
	if p.find != nil {
		idx = p.find(s)
	} else {
		idx = p.re().FindAllStringSubmatchIndex(s, -1)
	}
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range idx {
		start, end, keptEnd := m[0], m[1], m[3]
		if strings.HasPrefix(s[end:], markerPrefix) {
			continue
		}
		visible := keptEnd
		if p.keep > 0 {
			visible = min(keptEnd+p.keep, end)
		}
		b.WriteString(s[last:start])
		b.WriteString(s[start:visible])
		b.WriteString(marker(p.kind))
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// Kinds lists the kinds whose pattern matches s, in pattern order (tests
// and audits use it; Mask does the masking).
func Kinds(s string) []Kind {
	var out []Kind
	for _, p := range patterns() {
		if p.re().MatchString(s) {
			out = append(out, p.kind)
		}
	}
	return out
}

// assignNames are the assignment pattern's names in its order (the
// regexp's alternation is leftmost-first); "" stands for an optional '_'
// or '-' between the two halves of a name.
var assignNames = [][2]string{
	{"password", ""}, {"passwd", ""}, {"pwd", ""}, {"secret", ""}, {"client", "secret"},
	{"api", "key"}, {"apikey", ""}, {"access", "token"}, {"auth", "token"}, {"private", "key"},
}

// findAssignments finds what the assignment regexp finds, in one pass
// without the regexp engine, which on long texts costs more than decoding
// them. The regexp: a name at a word boundary (case-insensitive), an
// optional quote, spaces, ':' or '=', spaces, an optional quote, then a
// value of 4 or more characters that are not spaces, quotes or & , ; [ ] { }
// ( ) < > \. Every step but the name is deterministic (no class overlaps
// the next), so trying each name in order at each boundary and taking the
// first that completes is the regexp's leftmost-first answer.
func findAssignments(s string) [][]int {
	var out [][]int
	for i := 0; i < len(s); {
		if i > 0 && isWordByte(s[i-1]) || !isWordByte(s[i]) && s[i] < 0x80 {
			i++
			continue
		}
		if m := assignmentAt(s, i); m != nil {
			out = append(out, m)
			i = m[1]
			continue
		}
		i++
	}
	return out
}

// assignmentAt matches the assignment at i, or returns nil.
func assignmentAt(s string, i int) []int {
	for _, n := range assignNames {
		j, ok := foldPrefix(s, i, n[0])
		if !ok {
			continue
		}
		if n[1] != "" {
			if j < len(s) && (s[j] == '_' || s[j] == '-') {
				if k, ok := foldPrefix(s, j+1, n[1]); ok {
					j = k
				} else if j, ok = foldPrefix(s, j, n[1]); !ok {
					continue
				}
			} else if j, ok = foldPrefix(s, j, n[1]); !ok {
				continue
			}
		}
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++
		}
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j >= len(s) || s[j] != ':' && s[j] != '=' {
			continue
		}
		j++
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++
		}
		keptEnd := j
		runes := 0
		for j < len(s) {
			r, w := utf8.DecodeRuneInString(s[j:])
			if r < 0x80 && (isSpace(byte(r)) || strings.IndexByte("\"'&,;[]{}()<>\\", byte(r)) >= 0) {
				break
			}
			j += w
			runes++
		}
		if runes >= 4 {
			return []int{i, j, i, keptEnd}
		}
	}
	return nil
}

// foldPrefix matches the lower-case ASCII word w at s[i:] as the regexp's
// case folding does (ASCII case, and K (Kelvin) for k, ſ (long s) for s),
// returning the end of the match.
func foldPrefix(s string, i int, w string) (int, bool) {
	for k := 0; k < len(w); k++ {
		if i >= len(s) {
			return 0, false
		}
		c := s[i]
		if c < 0x80 {
			if c|0x20 != w[k] || c < 'A' {
				return 0, false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(w[k] == 'k' && r == '\u212a' || w[k] == 's' && r == '\u017f') {
			return 0, false
		}
		i += n
	}
	return i, true
}

// isWordByte is the regexp's \w for a byte (ASCII only, as in RE2).
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// isSpace is the regexp's \s: tab, newline, form feed, carriage return
// and space (RE2 has no vertical tab in \s).
func isSpace(c byte) bool {
	return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}
