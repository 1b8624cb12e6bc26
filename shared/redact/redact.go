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
	re   *regexp.Regexp
	// keep is how many characters of the masked part stay visible.
	keep int
}

// patterns are tried in order; earlier ones win on overlap (an Anthropic
// key is also shaped like an OpenAI key). Formats with a distinctive marker
// (ghp_, AIza, AKIA, xoxb-, eyJ…) match anywhere, even glued to a preceding
// word; the "sk-" keys must start a word, or hyphenated prose ("task-of-…")
// would be masked.
//
// They are compiled on first use, not at package initialisation: every
// notesoup process links this package, most never mask anything, and
// compiling them cost about 1 ms of each helper start.
var patterns = sync.OnceValue(func() []pattern {
	return []pattern{
		{KindPrivateKey, regexp.MustCompile(`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\:,-]*)`), 0},
		{KindAnthropic, regexp.MustCompile(`\b(sk-ant-)[A-Za-z0-9_-]{20,}`), KeepChars},
		{KindOpenAI, regexp.MustCompile(`\b(sk-(?:proj-|svcacct-|admin-)?)[A-Za-z0-9_-]{20,}`), KeepChars},
		{KindGitHub, regexp.MustCompile(`(gh[pousr]_)[A-Za-z0-9]{30,}`), KeepChars},
		{KindGitHub, regexp.MustCompile(`(github_pat_)[A-Za-z0-9_]{22,}`), KeepChars},
		{KindAWS, regexp.MustCompile(`((?:AKIA|ASIA))[0-9A-Z]{16}\b`), KeepChars},
		{KindSlack, regexp.MustCompile(`(xox[abposr]-)[A-Za-z0-9-]{10,}`), KeepChars},
		{KindGoogle, regexp.MustCompile(`(AIza)[0-9A-Za-z_-]{35}`), KeepChars},
		{KindJWT, regexp.MustCompile(`(eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), KeepChars},
		// A generic assignment: the name and operator stay, the whole value
		// goes (a password has no format marker worth keeping). The value must
		// be 4+ characters so prose ("password is set") is left alone, and
		// may not start with '[' so a masked value is not masked again.
		{KindAssignment, regexp.MustCompile(`(?i)(\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|private[_-]?key)["']?\s*[:=]\s*["']?)[^\s"'&,;\[\]{}()<>\\]{4,}`), 0},
	}
})

// markerPrefix starts every marker.
const markerPrefix = "[REDACTED "

// marker is the text that replaces a masked part.
func marker(k Kind) string { return markerPrefix + string(k) + "]" }

// quick lists substrings at least one of which every pattern's match
// contains (case-insensitively), so text without any skips the regexps.
var quick = []string{"private key-----", "sk-", "gh", "github_pat_", "akia", "asia", "xox", "aiza", "eyj",
	"password", "passwd", "pwd", "secret", "key", "token"}

// Mask returns s with every recognised secret masked.
func Mask(s string) string {
	if !mayContain(s) {
		return s
	}
	for _, p := range patterns() {
		s = p.mask(s)
	}
	return s
}

// mask replaces every match of p in s. A match already followed by a
// marker is left alone, so masking twice changes nothing.
func (p pattern) mask(s string) string {
	idx := p.re.FindAllStringSubmatchIndex(s, -1)
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

// mayContain reports whether s could hold a secret at all.
func mayContain(s string) bool {
	l := strings.ToLower(s)
	for _, q := range quick {
		if strings.Contains(l, q) {
			return true
		}
	}
	return false
}

// Kinds lists the kinds whose pattern matches s, in pattern order (tests
// and audits use it; Mask does the masking).
func Kinds(s string) []Kind {
	var out []Kind
	for _, p := range patterns() {
		if p.re.MatchString(s) {
			out = append(out, p.kind)
		}
	}
	return out
}
