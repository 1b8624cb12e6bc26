// Package redact masks secrets (API keys, tokens, private keys, passwords
// in assignments, command-line flags, URLs and Authorization headers) in
// text that notesoup shows from a person's transcripts. Transcripts record
// whatever a tool printed or a person pasted, and history output goes to a
// model's context and to terminals, so secrets are masked by default and
// shown only when the caller asks.
//
// The rules are the project's own (the formats below and the assignment,
// flag, URL and header forms of assign.go) followed by gitleaks' ruleset
// (gitleaks_rules.go, generated from a pinned gitleaks release by
// `go generate`; see gen.go and scripts/update-secret-rules.sh), so new
// token formats arrive as data. A prefilter (prefilter.go) finds in one
// pass over a text which rules' keywords it holds, so only those run.
//
// Masking is deterministic: the same input always yields the same output,
// and masking twice changes nothing. A masked token keeps its format
// marker and a few characters after it (e.g. "ghp_AbCd") so two keys can
// still be told apart, followed by "[REDACTED <kind>]".
package redact

import (
	mathbits "math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// KeepChars is how many characters after a token's format marker stay
// visible: enough to tell two keys apart, far too few to use one (a rule
// keeps them only where at least 16 more characters stay hidden, 60 bits
// and more for the formats masked).
const KeepChars = 4

// Kind names a secret format. Besides the constants below, a gitleaks
// rule's matches are of the Kind named by the rule's id (for example
// "stripe-access-token").
type Kind string

// The secret formats the project recognises itself.
const (
	KindAnthropic  Kind = "anthropic key"
	KindOpenAI     Kind = "openai key"
	KindGitHub     Kind = "github token"
	KindAWS        Kind = "aws access key id"
	KindSlack      Kind = "slack token"
	KindGoogle     Kind = "google api key"
	KindJWT        Kind = "jwt"
	KindPrivateKey Kind = "private key"
	// KindAssignment is a value given to a secret-named variable, key or
	// command-line flag (DB_PASSWORD=…, "apiKey": "…", --token …).
	KindAssignment Kind = "secret"
	// KindURLPassword is the password of a URL's user information
	// (scheme://user:password@host).
	KindURLPassword Kind = "url password"
	// KindAuthorization is an HTTP Authorization header's credentials or a
	// bearer token.
	KindAuthorization Kind = "authorization"
)

// span is a part of a text to mask: s[from:to] is replaced by a marker;
// what comes before from, the format marker and kept characters included,
// stays.
type span struct{ from, to int }

// rule is one secret format.
type rule struct {
	kind Kind
	// triggers are lower-case ASCII literals, one of which every text the
	// rule masks holds (case-insensitively): the rule runs only on such
	// texts (see prefilter.go). For the project's rules this is an
	// optimisation; for gitleaks' it is the rule's meaning (its keywords).
	triggers []string
	// find returns the spans to mask in s, in order and disjoint (the
	// project's rules).
	find func(s string) []span
	// gl is the gitleaks rule, for gitleaks' rules.
	gl *glRule
}

// spans returns the spans r masks in s.
func (r *rule) spans(s string) []span {
	if r.gl != nil {
		return r.gl.spans(s)
	}
	return r.find(s)
}

// ownRules are the project's rules, with their triggers from ownTriggers
// (triggers.go), which is in the same order.
var ownRules = sync.OnceValue(func() []rule {
	rs := []rule{
		// The BEGIN line stays (it says what the block was); the body goes
		// up to the END line or, in a text cut short, as far as it looks
		// like a body (base64, PGP armour headers, JSON-escaped newlines).
		{kind: KindPrivateKey, find: regexFind(`(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)`, 0)},
		// An Anthropic key is distinctive enough to mask wherever it is,
		// even glued to a word (ANTHROPIC_KEY_sk-ant-…).
		{kind: KindAnthropic, find: regexFind(`(sk-ant-)[A-Za-z0-9_-]{20,}`, KeepChars)},
		{kind: KindOpenAI, find: findOpenAI},
		{kind: KindGitHub, find: regexFind(`(gh[pousr]_)[A-Za-z0-9]{30,}`, KeepChars)},
		{kind: KindGitHub, find: regexFind(`(github_pat_)[A-Za-z0-9_]{22,}`, KeepChars)},
		{kind: KindAWS, find: regexFind(`((?:AKIA|ASIA))[0-9A-Z]{16}\b`, KeepChars)},
		{kind: KindSlack, find: regexFind(`(xox[abposr]-)[A-Za-z0-9-]{10,}`, KeepChars)},
		{kind: KindGoogle, find: regexFind(`(AIza)[0-9A-Za-z_-]{35}`, KeepChars)},
		{kind: KindJWT, find: regexFind(`(eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, KeepChars)},
		{kind: KindURLPassword, find: findURLPasswords},
		{kind: KindAuthorization, find: findAuthorization},
		{kind: KindAuthorization, find: findBearer},
		{kind: KindAssignment, find: findAssignments},
		{kind: KindAssignment, find: findFlags},
	}
	if len(rs) != len(ownTriggers) {
		panic("redact: ownRules and ownTriggers differ in length")
	}
	for i := range rs {
		rs[i].triggers = ownTriggers[i]
	}
	return rs
})

// rules are tried in order, each on the text the earlier ones left; a
// span already masked is never masked again, so earlier rules win on
// overlap. The project's own rules come first: they keep the kinds and
// markers callers and tests know, and gitleaks' rules fill in the many
// formats they lack. The prefilter's tables number the rules in this
// order. Mask reaches gitleaks' rules by that number, without this list
// (see Mask); Kinds and the tests use it.
var rules = sync.OnceValue(func() []rule {
	rs := slices.Clone(ownRules())
	for i := range gitleaksRules {
		r := &gitleaksRules[i]
		rs = append(rs, rule{kind: Kind(r.id), triggers: r.keywords, gl: r})
	}
	return rs
})

// regexFind returns a finder for expr, compiled on its first use (most
// texts are settled by the prefilter, and every notesoup process links this
// package). The first submatch is the format marker: it and keep
// characters after it stay visible, the rest of the match is masked.
func regexFind(expr string, keep int) func(string) []span {
	re := lazyRegexp(expr)
	return func(s string) []span {
		var out []span
		for _, m := range re().FindAllStringSubmatchIndex(s, -1) {
			out = append(out, span{min(m[3]+keep, m[1]), m[1]})
		}
		return out
	}
}

// lazyRegexp returns a function that compiles expr on its first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// markerPrefix starts every marker.
const markerPrefix = "[REDACTED "

// marker is the text that replaces a masked part.
func marker(k Kind) string { return markerPrefix + string(k) + "]" }

// Mask returns s with every recognised secret masked.
func Mask(s string) string {
	if s == "" {
		return s
	}
	fired := automaton().scan(s)
	// The set bits in order: most texts fire a few rules or none, and
	// testing each of the hundreds of rules' bits would cost more than the
	// scan. A gitleaks rule is reached through its table entry alone, not
	// rules(): making every rule's entry would touch all of the table, a
	// dozen page faults, more than a page of history costs to mask.
	own := ownRules()
	for w, bits := range fired {
		for bits != 0 {
			i := w<<6 | mathbits.TrailingZeros64(bits)
			bits &= bits - 1
			if i < len(own) {
				s = own[i].mask(s)
			} else {
				gl := &gitleaksRules[i-len(own)]
				s = applySpans(s, gl.spans(s), Kind(gl.id))
			}
		}
	}
	return s
}

// mask replaces every span r finds in s with r's marker.
func (r *rule) mask(s string) string { return applySpans(s, r.spans(s), r.kind) }

// applySpans replaces the spans of s with kind k's marker. A span already
// followed by a marker, or holding one, is left alone, so masking twice
// changes nothing and a later rule does not swallow an earlier one's mask.
func applySpans(s string, spans []span, k Kind) string {
	if spans == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.from >= sp.to || sp.from < last || masked(s, sp) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:sp.from])
		b.WriteString(marker(k))
		last = sp.to
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// masked reports whether sp was masked already: it starts a marker, holds
// one or one follows it.
func masked(s string, sp span) bool {
	return strings.HasPrefix(s[sp.to:], markerPrefix) || strings.HasPrefix(s[sp.from:], markerPrefix) || strings.Contains(s[sp.from:sp.to], markerPrefix)
}

// Kinds lists the kinds of the rules that would mask something in s, in
// rule order, each once (tests and audits use it; Mask does the masking).
func Kinds(s string) []Kind {
	var out []Kind
	for i := range rules() {
		r := &rules()[i]
		if r.gl != nil && !holdsFold(s, r.triggers) {
			continue
		}
		if r.mask(s) == s {
			continue
		}
		seen := false
		for _, k := range out {
			seen = seen || k == r.kind
		}
		if !seen {
			out = append(out, r.kind)
		}
	}
	return out
}

// holdsFold reports whether s holds one of the lower-case ASCII words ws,
// ASCII case-insensitively: the prefilter's meaning, spelled plainly.
func holdsFold(s string, ws []string) bool {
	l := asciiLower(s)
	for _, w := range ws {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// asciiLower lower-cases the ASCII letters of s and nothing else (gitleaks'
// keywords and the project's triggers are ASCII).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
