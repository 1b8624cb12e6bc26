package redact

import (
	"strings"
	"unicode/utf8"
)

// This file holds the project's hand-written rules for secrets that have
// no format of their own and are known by where they stand: the value of a
// secret-named variable or key (DB_PASSWORD=…, "apiKey": "…"), of a
// command-line flag (--password …), the password in a URL
// (scheme://user:password@host) and the credentials of an Authorization
// header. They are matched by hand, not by regexps: the names are in much
// of the code a history page shows, so they run often, and Go's regexp
// engine would cost more than decoding the transcript (BENCHMARKS.md).

// keyQualifiers are the words that make a name ending in "key" a secret's
// (API_KEY, SECRET_KEY, privateKey, AWS_SECRET_ACCESS_KEY); "key" alone,
// primary_key or ssh_key name no secret.
var keyQualifiers = []string{"api", "secret", "private", "access", "auth", "signing", "encryption", "master", "client", "app", "service", "account", "license", "shared", "hmac", "jwt"}

// notSecrets are values that say what a field is rather than hold one:
// JSON and YAML literals and the type names of declarations
// (password: string).
var notSecrets = []string{"true", "false", "null", "none", "nil", "undefined", "string", "str", "number", "int", "bool", "boolean", "bytes", "any", "object"}

// minValue is the fewest characters a value must have to be masked, so
// prose and placeholders ("password: abc", "token: 5") stay as they are.
const minValue = 4

// findAssignments finds the values given to secret-named variables, keys
// and fields: NAME=value, name: value, "name": "value", name := value,
// name => value, NAME ?= value. A quoted value is masked whole, spaces
// included, up to its closing quote on the same line (a backslash-escaped
// quote, as in a JSON-encoded command, closes at the same escaped quote);
// an unquoted one runs to a space, quote or one of & , ; [ ] { } ( ) < > \.
func findAssignments(s string) []span {
	var out []span
	for p := 0; p < len(s); p++ {
		c := s[p]
		if c != ':' && c != '=' {
			continue
		}
		opEnd := p + 1
		next := byte(0)
		if p+1 < len(s) {
			next = s[p+1]
		}
		switch {
		case c == '=' && (next == '=' || next == '~'),
			c == ':' && next == ':',
			c == ':' && strings.HasPrefix(s[p+1:], "//"):
			// Comparisons, scope operators and URLs are no assignment.
			p++
			continue
		case p > 0 && strings.IndexByte("=!<>:", s[p-1]) >= 0:
			continue
		case c == ':' && next == '=' || c == '=' && next == '>':
			opEnd++
		}
		opStart := p
		if c == '=' && p > 0 && s[p-1] == '?' {
			opStart-- // make's NAME ?= value
		}
		a, b := nameBefore(s, opStart)
		if a == b || !secretName(s[a:b]) {
			continue
		}
		v := opEnd
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		sp, end, ok := valueAt(s, v)
		if !ok || pwdPath(s[a:b], s[sp.from:sp.to]) {
			continue
		}
		out = append(out, sp)
		p = end - 1
	}
	return out
}

// nameBefore returns the bounds of the name an operator at p assigns to:
// the identifier before it, past spaces and a closing quote (escaped or
// not).
func nameBefore(s string, p int) (int, int) {
	b := p
	for b > 0 && (s[b-1] == ' ' || s[b-1] == '\t') {
		b--
	}
	if b > 0 && (s[b-1] == '"' || s[b-1] == '\'') {
		b--
		if b > 0 && s[b-1] == '\\' {
			b--
		}
	}
	a := b
	for a > 0 && isNameByte(s[a-1]) {
		a--
	}
	return a, b
}

// isNameByte is true of the bytes of a variable, key or flag name.
func isNameByte(c byte) bool {
	return isWordByte(c) || c == '-' || c == '.'
}

// isWordByte is the regexp's \w for a byte (ASCII only, as in RE2).
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// pwdPath reports whether name and value are the shell's working
// directory (PWD=/home/me, OLDPWD=~/src) rather than a password.
func pwdPath(name, value string) bool {
	name = strings.TrimLeft(name, "-")
	return (strings.EqualFold(name, "pwd") || strings.EqualFold(name, "oldpwd")) && (value[0] == '/' || value[0] == '~')
}

// valueAt parses the value that starts at v: quoted (masked whole, up to
// the closing quote on the same line) or a run of value bytes. It returns
// the span to mask and where the value ends (past a closing quote), or
// false where there is no value worth masking: too short, a literal such
// as null or a type name, or a reference to one held elsewhere ($TOKEN,
// ${{ secrets.X }}, %PASSWORD%, <password>).
func valueAt(s string, v int) (span, int, bool) {
	if q := quoteAt(s, v); q != "" {
		from := v + len(q)
		line := s[from:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		if n := strings.Index(line, q); n > 0 {
			to := from + n
			val := s[from:to]
			if utf8.RuneCountInString(val) < minValue || plainValue(val) {
				return span{}, 0, false
			}
			return span{from, to}, to + len(q), true
		}
		// No closing quote on this line: the value runs as an unquoted one.
		v = from
	}
	to := v
	for to < len(s) {
		c := s[to]
		if c < utf8.RuneSelf && (isSpace(c) || strings.IndexByte("\"'`&,;[]{}()<>\\", c) >= 0) {
			break
		}
		to++
	}
	val := s[v:to]
	if utf8.RuneCountInString(val) < minValue || plainValue(val) {
		return span{}, 0, false
	}
	return span{v, to}, to, true
}

// quoteAt returns the quote that opens a value at v: ", ' or `, or a
// backslash-escaped " or ' (a value inside a JSON string), or "".
func quoteAt(s string, v int) string {
	if v >= len(s) {
		return ""
	}
	switch s[v] {
	case '"', '\'', '`':
		return s[v : v+1]
	case '\\':
		if v+1 < len(s) && (s[v+1] == '"' || s[v+1] == '\'') {
			return s[v : v+2]
		}
	}
	return ""
}

// plainValue reports whether a value names no secret: a literal or type
// name (notSecrets) or a reference to a secret held elsewhere.
func plainValue(v string) bool {
	for _, w := range notSecrets {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	switch {
	case v[0] == '$':
		// $NAME, ${NAME}, ${{ secrets.NAME }}, $(command): a shell or CI
		// variable, not its value.
		return len(v) == 1 || v[1] == '{' || v[1] == '(' || isIdent(v[1:])
	case strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}"),
		len(v) > 2 && v[0] == '%' && v[len(v)-1] == '%' && isIdent(v[1:len(v)-1]),
		len(v) > 2 && v[0] == '<' && v[len(v)-1] == '>':
		return true
	}
	return false
}

// isIdent reports whether s is a variable name: letters, digits, '_'.
func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// isSpace is the regexp's \s: tab, newline, form feed, carriage return
// and space (RE2 has no vertical tab in \s).
func isSpace(c byte) bool {
	return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

// secretName reports whether a variable, key or flag name names a secret.
// Its last word (words split at _ - . and camelCase) decides: one ending
// in password, passwd, passphrase, secret or token (DB_PASSWORD,
// PGPASSWORD, GOOGLE_CLIENT_SECRET, accessToken), pass or pwd, or apikey,
// secretkey or privatekey; or "key" after a qualifying word (SECRET_KEY,
// secretKey, AWS_SECRET_ACCESS_KEY, x-api-key). A name whose last word is
// anything else (password_policy, token_count, max_tokens, secret_name)
// names something about a secret, not one.
func secretName(name string) bool {
	var ws [16]word
	words := splitWords(name, ws[:0])
	if len(words) == 0 {
		return false
	}
	last := name[words[len(words)-1].a:words[len(words)-1].b]
	for _, suf := range []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "secretkey", "privatekey"} {
		if hasSuffixFold(last, suf) {
			return true
		}
	}
	if strings.EqualFold(last, "pass") || strings.EqualFold(last, "pwd") {
		return true
	}
	if !strings.EqualFold(last, "key") {
		return false
	}
	for _, w := range words[:len(words)-1] {
		for _, q := range keyQualifiers {
			if strings.EqualFold(name[w.a:w.b], q) {
				return true
			}
		}
	}
	return false
}

// word is the bounds of one word of a name.
type word struct{ a, b int }

// splitWords appends to ws the words of name: runs of letters and digits
// split at any other byte and where camelCase starts a word (dbPassword,
// APIKey). It keeps the last len(ws)'s capacity words of a longer name.
func splitWords(name string, ws []word) []word {
	start := -1
	for i := 0; i <= len(name); i++ {
		if i == len(name) || !isAlnum(name[i]) {
			if start >= 0 {
				ws = push(ws, word{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		c, prev := name[i], name[i-1]
		if isUpper(c) && (isLower(prev) || isDigit(prev) || isUpper(prev) && i+1 < len(name) && isLower(name[i+1])) {
			ws = push(ws, word{start, i})
			start = i
		}
	}
	return ws
}

// push appends w, dropping the first word when ws is full.
func push(ws []word, w word) []word {
	if len(ws) == cap(ws) {
		copy(ws, ws[1:])
		ws = ws[:len(ws)-1]
	}
	return append(ws, w)
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

// hasSuffixFold is strings.HasSuffix, ASCII case-insensitively.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// hasPrefixFold is strings.HasPrefix, ASCII case-insensitively.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// findFlags finds the values of secret-named command-line flags given as
// a separate argument: --password VALUE, --api-key 'VALUE'. (--name=VALUE
// is an assignment.) A value that starts with '-' is the next flag.
func findFlags(s string) []span {
	var out []span
	for i := 0; ; {
		j := strings.Index(s[i:], "--")
		if j < 0 {
			return out
		}
		i += j + 2
		if i > 2 && isNameByte(s[i-3]) {
			continue
		}
		a := i
		for i < len(s) && isNameByte(s[i]) {
			i++
		}
		if a == i || i >= len(s) || s[i] != ' ' && s[i] != '\t' || !secretName(s[a:i]) {
			continue
		}
		v := i
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if v >= len(s) || s[v] == '-' {
			continue
		}
		sp, end, ok := valueAt(s, v)
		if !ok {
			continue
		}
		out = append(out, sp)
		i = end
	}
}

// findURLPasswords finds the password of each URL's user information,
// scheme://user:password@host; the user and host stay. The authority ends
// at the first / ? # space, quote, bracket or backslash, and its user
// information at its last @, as in RFC 3986.
func findURLPasswords(s string) []span {
	var out []span
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return out
		}
		j += i
		i = j + 3
		if j == 0 || !isAlnum(s[j-1]) {
			continue
		}
		end := i
		for end < len(s) && strings.IndexByte("/?#\"'`<>[]\\ \t\r\n\f", s[end]) < 0 {
			end++
		}
		auth := s[i:end]
		at := strings.LastIndexByte(auth, '@')
		if at < 0 {
			continue
		}
		colon := strings.IndexByte(auth[:at], ':')
		if colon < 0 || colon+1 == at || plainValue(auth[colon+1:at]) {
			continue
		}
		out = append(out, span{i + colon + 1, i + at})
		i = end
	}
}

// findAuthorization finds the credentials of Authorization headers
// (Authorization: Bearer …, "authorization": "Basic …",
// Proxy-Authorization: …). The scheme word stays, the rest of the value
// goes.
func findAuthorization(s string) []span {
	const name = "authorization"
	var out []span
	for i := 0; i+len(name) <= len(s); i++ {
		if s[i]|0x20 != 'a' || !hasPrefixFold(s[i:], name) || i > 0 && isAlnum(s[i-1]) {
			continue
		}
		p := i + len(name)
		i = p - 1
		if q := quoteAt(s, p); q != "" && q != "`" {
			p += len(q)
		}
		for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
			p++
		}
		if p >= len(s) || s[p] != ':' && s[p] != '=' {
			continue
		}
		p++
		for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
			p++
		}
		q := quoteAt(s, p)
		p += len(q)
		// A scheme is a word followed by a space and more (Bearer x,
		// Basic x, token x); without one, the whole value is the secret.
		w := p
		for w < len(s) && (isLower(s[w]) || isUpper(s[w])) {
			w++
		}
		if w > p && w+1 < len(s) && s[w] == ' ' && !isSpace(s[w+1]) {
			p = w + 1
		}
		end := p
		if q != "" {
			line := s[p:]
			if nl := strings.IndexByte(line, '\n'); nl >= 0 {
				line = line[:nl]
			}
			if n := strings.Index(line, q); n >= 0 {
				end = p + n
			}
		}
		if end == p {
			for end < len(s) && !isSpace(s[end]) && strings.IndexByte("\"'`\\<>", s[end]) < 0 {
				end++
			}
		}
		val := s[p:end]
		if utf8.RuneCountInString(val) < minValue || plainValue(val) || isScheme(val) {
			continue
		}
		out = append(out, span{p, end})
		i = end - 1
	}
	return out
}

// isScheme reports whether v is an authentication scheme's name alone
// ("Authorization: Bearer" in a header template), which names no secret.
func isScheme(v string) bool {
	for _, w := range []string{"bearer", "basic", "token", "digest", "negotiate"} {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return false
}

// findBearer finds bearer tokens outside a header ("Bearer 3f9a…" in a
// log line or a command): the word bearer, spaces, then a token68
// (RFC 7235) of 16 or more characters with a digit and a letter, so prose
// ("bearer tokens expire") is left alone.
func findBearer(s string) []span {
	const name = "bearer"
	var out []span
	for i := 0; i+len(name) < len(s); i++ {
		if s[i]|0x20 != 'b' || !hasPrefixFold(s[i:], name) || i > 0 && isAlnum(s[i-1]) {
			continue
		}
		p := i + len(name)
		i = p - 1
		if s[p] != ' ' && s[p] != '\t' {
			continue
		}
		for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
			p++
		}
		end, digit, letter := p, false, false
		for end < len(s) && (isAlnum(s[end]) || strings.IndexByte("-._~+/", s[end]) >= 0) {
			digit = digit || isDigit(s[end])
			letter = letter || isLower(s[end]) || isUpper(s[end])
			end++
		}
		for end < len(s) && s[end] == '=' {
			end++
		}
		if end-p < 16 || !digit || !letter {
			continue
		}
		out = append(out, span{p, end})
		i = end - 1
	}
	return out
}

// findOpenAI finds OpenAI keys: "sk-", an optional kind (proj-, svcacct-,
// admin-) and 20 or more key characters, starting a word ('_' and '-'
// count as separators, so KEY_sk-… is found, task-… is not a key).
// The marker and kind stay with KeepChars characters after them.
func findOpenAI(s string) []span {
	var out []span
	for i := 0; ; {
		j := strings.Index(s[i:], "sk-")
		if j < 0 {
			return out
		}
		start := i + j
		i = start + 3
		if start > 0 && isAlnum(s[start-1]) {
			continue
		}
		end := i
		for end < len(s) && (isWordByte(s[end]) || s[end] == '-') {
			end++
		}
		kept := i
		for _, kind := range []string{"proj-", "svcacct-", "admin-"} {
			if strings.HasPrefix(s[i:end], kind) && end-i-len(kind) >= 20 {
				kept += len(kind)
				break
			}
		}
		if end-kept < 20 {
			continue
		}
		out = append(out, span{kept + KeepChars, end})
		i = end
	}
}
