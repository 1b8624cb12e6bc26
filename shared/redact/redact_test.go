package redact

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Fake secrets, built from pieces so the source holds no literal key a
// secret scanner would flag.
var (
	anthropicKey = "sk-ant-" + "api03-" + strings.Repeat("Ab3_", 20)
	openaiKey    = "sk-" + "proj-" + strings.Repeat("Zq9x", 12)
	openaiLegacy = "sk-" + strings.Repeat("T3BlbkFJ", 6)
	ghpToken     = "ghp_" + strings.Repeat("aB1c", 9)
	ghoToken     = "gho_" + strings.Repeat("Xy7z", 9)
	githubPAT    = "github_pat_" + "11ABCDEFG0" + strings.Repeat("_q1W", 18)
	awsKeyID     = "AKIA" + "IOSFODNN7EXAMPLE"
	slackToken   = "xoxb-" + "123456789012-" + "1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"
	googleKey    = "AIza" + "SyA-" + strings.Repeat("b2C3", 7) + "d4E"
	jwt          = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pemBlock     = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c2Vx\nq8w9e0r1t2y3u4i5o6p7==\n-----END RSA PRIVATE KEY-----"
)

func TestMaskEachPattern(t *testing.T) {
	tests := []struct {
		name, in  string
		want      string // exact output
		wantKinds []Kind
	}{
		{"anthropic", "key: " + anthropicKey + " done", "key: sk-ant-api0[REDACTED anthropic key] done", []Kind{KindAnthropic, KindOpenAI}},
		{"openai project", "export OPENAI=" + openaiKey, "export OPENAI=sk-proj-Zq9x[REDACTED openai key]", []Kind{KindOpenAI}},
		{"openai legacy", openaiLegacy, "sk-T3Bl[REDACTED openai key]", []Kind{KindOpenAI}},
		{"github ghp", "token " + ghpToken, "token ghp_aB1c[REDACTED github token]", []Kind{KindGitHub}},
		{"github gho", ghoToken + ".", "gho_Xy7z[REDACTED github token].", []Kind{KindGitHub}},
		{"github pat", githubPAT, "github_pat_11AB[REDACTED github token]", []Kind{KindGitHub}},
		{"aws", "id=" + awsKeyID + "\n", "id=AKIAIOSF[REDACTED aws access key id]\n", []Kind{KindAWS}},
		{"slack", slackToken, "xoxb-1234[REDACTED slack token]", []Kind{KindSlack}},
		{"google", googleKey, "AIzaSyA-[REDACTED google api key]", []Kind{KindGoogle}},
		{"jwt", "Bearer " + jwt, "Bearer eyJhbGc[REDACTED jwt]", []Kind{KindJWT}},
		{"pem block", "x\n" + pemBlock + "\ny", "x\n-----BEGIN RSA PRIVATE KEY-----[REDACTED private key]\ny", []Kind{KindPrivateKey}},
		{"pem in json, cut", `{"content":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\nBgkqhkiG9w0"}`,
			`{"content":"-----BEGIN PRIVATE KEY-----[REDACTED private key]"}`, []Kind{KindPrivateKey}},
		{"password assign", "password=hunter22 next", "password=[REDACTED secret] next", []Kind{KindAssignment}},
		{"api_key json", `{"api_key": "abcd1234efgh"}`, `{"api_key": "[REDACTED secret]"}`, []Kind{KindAssignment}},
		{"API-KEY colon", "API-KEY: s3cr3tvalue", "API-KEY: [REDACTED secret]", []Kind{KindAssignment}},
		{"client secret", "client_secret='q9w8e7r6'", "client_secret='[REDACTED secret]'", []Kind{KindAssignment}},
		{"assignment of a key keeps its kind", "api_key=" + ghpToken, "api_key=ghp_aB1c[REDACTED github token]", []Kind{KindGitHub, KindAssignment}},

		// Lookalikes that are not secrets stay as they are.
		{"prose password", "the password is set by the admin", "the password is set by the admin", nil},
		{"short value", "pwd=abc", "pwd=abc", nil},
		{"task- word", "task-" + strings.Repeat("a", 30), "task-" + strings.Repeat("a", 30), nil},
		{"short sk", "sk-learn is a library", "sk-learn is a library", nil},
		{"AKIA too short", "AKIA1234", "AKIA1234", nil},
		{"google key glued to a word", "0" + googleKey, "0AIzaSyA-[REDACTED google api key]", []Kind{KindGoogle}},
		{"github token glued to a word", "x" + ghpToken, "xghp_aB1c[REDACTED github token]", []Kind{KindGitHub}},
		{"sk- inside a word is prose", "mask-" + strings.Repeat("ab", 12), "mask-" + strings.Repeat("ab", 12), nil},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", nil},
		{"plain", "nothing to see", "nothing to see", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Mask(tt.in)
			if got != tt.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Mask(got); again != got {
				t.Errorf("masking twice changed the text: %q -> %q", got, again)
			}
			if k := Kinds(tt.in); !equalKinds(k, tt.wantKinds) {
				t.Errorf("Kinds = %v, want %v", k, tt.wantKinds)
			}
		})
	}
}

func equalKinds(a, b []Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMaskDeterministic: the same secret masks the same way wherever it
// appears, and two different keys stay distinguishable.
func TestMaskDeterministic(t *testing.T) {
	other := "ghp_" + strings.Repeat("Qr5s", 9)
	got := Mask(ghpToken + " " + other + " " + ghpToken)
	want := "ghp_aB1c[REDACTED github token] ghp_Qr5s[REDACTED github token] ghp_aB1c[REDACTED github token]"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// FuzzMask: masking never leaves a recognised secret behind, is idempotent
// and keeps everything outside the secrets.
func FuzzMask(f *testing.F) {
	for _, s := range []string{anthropicKey, openaiKey, ghpToken, githubPAT, awsKeyID, slackToken, googleKey, jwt, pemBlock, "password=hunter22", "plain text"} {
		f.Add("before " + s + " after")
	}
	for _, s := range prefilterCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := Mask(s)
		if all := maskAll(s); m != all {
			t.Fatalf("the prefilters skipped a match: Mask(%q) = %q, every regexp gives %q", s, m, all)
		}
		if Mask(m) != m {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, m, Mask(m))
		}
		for _, secret := range []string{ghpToken, githubPAT, slackToken, googleKey, jwt} {
			if strings.Contains(s, secret) && strings.Contains(m, secret) {
				t.Fatalf("secret survived masking: %q", m)
			}
		}
		// "sk-" keys are recognised where a word starts.
		for _, secret := range []string{anthropicKey, openaiKey} {
			if (strings.HasPrefix(s, secret) || strings.Contains(s, " "+secret)) && (strings.HasPrefix(m, secret) || strings.Contains(m, " "+secret)) {
				t.Fatalf("secret survived masking: %q", m)
			}
		}
	})
}

// maskAll is Mask without the prefilters or the hand matcher: every
// regexp over every text.
func maskAll(s string) string {
	for _, p := range patterns() {
		p.find = nil
		s = p.mask(s)
	}
	return s
}

// assignmentRegexp is the assignment pattern's regexp.
func assignmentRegexp() *regexp.Regexp {
	for _, p := range patterns() {
		if p.kind == KindAssignment {
			return p.re()
		}
	}
	panic("no assignment pattern")
}

// checkAssignments asserts that findAssignments finds what the regexp does.
func checkAssignments(t *testing.T, s string) {
	t.Helper()
	got, want := findAssignments(s), assignmentRegexp().FindAllStringSubmatchIndex(s, -1)
	if len(got) != len(want) {
		t.Fatalf("findAssignments(%q) = %v, the regexp finds %v", s, got, want)
	}
	for i := range got {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("findAssignments(%q) = %v, the regexp finds %v", s, got, want)
		}
	}
}

func TestFindAssignmentsMatchesTheRegexp(t *testing.T) {
	for _, s := range append(prefilterCases,
		"password=abc", "password=abcd", "xpassword=abcd", "_pwd=abcd", "9secret:abcd", "(secret: 'abcd')", "secret  =  \"abcd efgh\"",
		"client_secret=abcd client-secret=efgh clientsecret=ijkl", "api key=abcd", "Api_Key :\n\tabcd", "apikey='abcd'", "password\"=abcd",
		"password=ab\xffcd", "password=\u00e9\u00e9\u00e9\u00e9", "password=\u00e9\u00e9\u00e9", "PaSsWoRd=x=y=z=w", "password=[REDACTED secret]",
		"a=1 pwd: hunter22, secret=xyzw;", "passwordpassword=abcd", "auth-token:abcd access_token:efgh", "private key:abcd", "privat\u212aey=ab",
		"pa\u017fsword=abcd", "\u212apassword=abcd", "\u00e9password=abcd", "password=", "secret", "") {
		checkAssignments(t, s)
		checkAssignments(t, strings.ToUpper(s))
	}
}

func FuzzFindAssignments(f *testing.F) {
	for _, s := range prefilterCases {
		f.Add(s)
	}
	f.Fuzz(checkAssignments)
}

// prefilterCases sit at the edges of the prefilters: case folding, markers
// split from their keys, words that merely look alike.
var prefilterCases = []string{
	"PASSWORD=hunter22", "Pass" + "word: \"hunter22\"", "paſſword=hunter22", "api_Key=abcd1234", "API-KEY = abcd1234",
	"ACCESS_TOKEN: abcd1234", "client-secret=abcd1234", "privatekey:abcd1234", "pwd=abcd", "token is set", "secret= ok",
	"through the high light", "ghp_" + strings.Repeat("x", 30), "xghs_" + strings.Repeat("A1", 15), "gh_p" + strings.Repeat("x", 30),
	"AKIA" + strings.Repeat("Z", 16), "akia" + strings.Repeat("Z", 16), "eyJhbGciOiJI.eyJzdWIiOiIx.abcdefghij", "xoxb-1234567890",
	"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "task-sk-" + strings.Repeat("a", 24),
}

// TestMaskPrefiltersAreExact: the prefilters only ever skip a regexp that
// cannot match, on every pattern's own examples and at their edges.
func TestMaskPrefiltersAreExact(t *testing.T) {
	cases := append([]string{anthropicKey, openaiKey, ghpToken, githubPAT, awsKeyID, slackToken, googleKey, jwt, pemBlock}, prefilterCases...)
	for _, s := range cases {
		for _, text := range []string{s, "see " + s + " here", strings.ToUpper(s), strings.ToLower(s)} {
			if got, want := Mask(text), maskAll(text); got != want {
				t.Errorf("Mask(%q) = %q, every regexp gives %q", text, got, want)
			}
		}
	}
}

func BenchmarkMaskPlain(b *testing.B) {
	text := strings.Repeat("The build failed because the module cache was stale; rerun go build. ", 200)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Mask(text)
	}
}

// BenchmarkMaskCode masks source-like text full of the assignment pattern's
// names and operators (tokens, keys, "="), which every prefilter lets
// through: the hand matcher against the regexp it replaces.
func BenchmarkMaskCode(b *testing.B) {
	text := strings.Repeat("tokens := tokenize(input) // token count = len(tokens); apiKey = cfg.APIKey\n", 100)
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			Mask(text)
		}
	})
	b.Run("regexp", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			maskAll(text)
		}
	})
}
