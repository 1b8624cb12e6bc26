package redact

import (
	"math/rand/v2"
	"os"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/notesoup/notesoup/shared/redact/internal/ac"
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
	pgpBlock     = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBGVx3kEBCAC7m9Qz\n=Zk3p\n-----END PGP PRIVATE KEY BLOCK-----"
	stripeLive   = "sk_" + "live_" + "51Hq8TzK2eXaMpLe9vRw3YbN"
	stripeRK     = "rk_" + "live_" + "51Hq8TzK2eXaMpLe9vRw3YbN"
	gitlabPAT    = "glpat-" + "xY7kR2mQ9vL4tW8nB3pZ"
	awsSecret    = "wJalrXUtnFEMI/" + "K7MDENG/bPxRfiCYzq8W2kLm"
)

// maskCase is a text, what Mask must make of it, and the kinds found in it.
type maskCase struct {
	name, in string
	want     string // exact output
	kinds    []Kind
}

// checkMask runs a table of maskCases.
func checkMask(t *testing.T, tests []maskCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Mask(tt.in)
			if got != tt.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Mask(got); again != got {
				t.Errorf("masking twice changed the text: %q -> %q", got, again)
			}
			if all := maskAll(tt.in); all != got {
				t.Errorf("the prefilter changed the answer: every rule gives %q", all)
			}
			if k := Kinds(tt.in); !slices.Equal(k, tt.kinds) {
				t.Errorf("Kinds = %q, want %q", k, tt.kinds)
			}
		})
	}
}

func TestMaskEachPattern(t *testing.T) {
	checkMask(t, []maskCase{
		{"anthropic", "key: " + anthropicKey + " done", "key: sk-ant-api0[REDACTED anthropic key] done", []Kind{KindAnthropic, KindOpenAI}},
		{"openai project", "export OPENAI=" + openaiKey, "export OPENAI=sk-proj-Zq9x[REDACTED openai key]", []Kind{KindOpenAI}},
		{"openai legacy", openaiLegacy, "sk-T3Bl[REDACTED openai key]", []Kind{KindOpenAI}},
		{"github ghp", "token " + ghpToken, "token ghp_aB1c[REDACTED github token]", []Kind{KindGitHub}},
		{"github gho", ghoToken + ".", "gho_Xy7z[REDACTED github token].", []Kind{KindGitHub}},
		{"github pat", githubPAT, "github_pat_11AB[REDACTED github token]", []Kind{KindGitHub, "github-fine-grained-pat"}},
		{"aws", "id=" + awsKeyID + "\n", "id=AKIAIOSF[REDACTED aws access key id]\n", []Kind{KindAWS}},
		{"slack", slackToken, "xoxb-1234[REDACTED slack token]", []Kind{KindSlack, "slack-bot-token"}},
		{"google", googleKey, "AIzaSyA-[REDACTED google api key]", []Kind{KindGoogle}},
		{"jwt", "Bearer " + jwt, "Bearer eyJhbGc[REDACTED jwt]", []Kind{KindJWT, KindAuthorization}},
		{"pem block", "x\n" + pemBlock + "\ny", "x\n-----BEGIN RSA PRIVATE KEY-----[REDACTED private key]\ny", []Kind{KindPrivateKey, "private-key"}},
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
	})
}

// TestMaskIssue17 covers every form issue #17 names as missed, and the
// lookalikes each new rule must leave alone.
func TestMaskIssue17(t *testing.T) {
	checkMask(t, []maskCase{
		// Names with a prefix before PASSWORD / SECRET / TOKEN / KEY.
		{"DB_PASSWORD", "export DB_PASSWORD=hunter22", "export DB_PASSWORD=[REDACTED secret]", []Kind{KindAssignment}},
		{"PGPASSWORD", "PGPASSWORD=hunter22 psql -h db", "PGPASSWORD=[REDACTED secret] psql -h db", []Kind{KindAssignment}},
		{"AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY=" + awsSecret, "AWS_SECRET_ACCESS_KEY=[REDACTED secret]", []Kind{KindAssignment}},
		{"GOOGLE_CLIENT_SECRET", "GOOGLE_CLIENT_SECRET=GOCSPX-4kQ9zR2mW7", "GOOGLE_CLIENT_SECRET=[REDACTED secret]", []Kind{KindAssignment}},
		{"GITHUB_TOKEN", "GITHUB_TOKEN: abc123def456", "GITHUB_TOKEN: [REDACTED secret]", []Kind{KindAssignment}},
		{"dotted name", "spring.datasource.password=hunter22", "spring.datasource.password=[REDACTED secret]", []Kind{KindAssignment}},
		// SECRET_KEY = '...' and secretKey: "...".
		{"SECRET_KEY python", "SECRET_KEY = 'django-insecure-x9'", "SECRET_KEY = '[REDACTED secret]'", []Kind{KindAssignment}},
		{"secretKey camel", `secretKey: "abcd1234efgh"`, `secretKey: "[REDACTED secret]"`, []Kind{KindAssignment}},
		{"APIKey acronym", `cfg.APIKey := "abcd1234efgh"`, `cfg.APIKey := "[REDACTED secret]"`, []Kind{KindAssignment}},
		{"x-api-key header", "x-api-key: abcd1234efgh", "x-api-key: [REDACTED secret]", []Kind{KindAssignment}},
		{"make default", "DB_PASSWORD ?= hunter22", "DB_PASSWORD ?= [REDACTED secret]", []Kind{KindAssignment}},
		{"fat arrow", "'password' => 'hunter22',", "'password' => '[REDACTED secret]',", []Kind{KindAssignment}},
		// --password VALUE.
		{"flag value", "mysql --user root --password hunter22 db", "mysql --user root --password [REDACTED secret] db", []Kind{KindAssignment}},
		{"flag quoted", "tool --api-key 'two words'", "tool --api-key '[REDACTED secret]'", []Kind{KindAssignment}},
		{"flag with =", "tool --token=abcd1234", "tool --token=[REDACTED secret]", []Kind{KindAssignment}},
		// Passwords in URLs.
		{"url password", "postgres://admin:hunter22@db.example.com:5432/app", "postgres://admin:[REDACTED url password]@db.example.com:5432/app", []Kind{KindURLPassword}},
		{"url no user", "redis://:p4ss@cache:6379", "redis://:[REDACTED url password]@cache:6379", []Kind{KindURLPassword}},
		{"url in json", `{"url":"https://bob:s3cr3t@host/x"}`, `{"url":"https://bob:[REDACTED url password]@host/x"}`, []Kind{KindURLPassword}},
		// Authorization headers.
		{"bearer header", "Authorization: Bearer abc123def456", "Authorization: Bearer [REDACTED authorization]", []Kind{KindAuthorization}},
		{"curl basic", `curl -H "Authorization: Basic dXNlcjpwYXNz" https://x`, `curl -H "Authorization: Basic [REDACTED authorization]" https://x`, []Kind{KindAuthorization, "curl-auth-header"}},
		{"json header", `{"authorization": "token abc123def456"}`, `{"authorization": "token [REDACTED authorization]"}`, []Kind{KindAuthorization}},
		{"no scheme", "Proxy-Authorization: abc123def456", "Proxy-Authorization: [REDACTED authorization]", []Kind{KindAuthorization}},
		{"bearer in a log", "sent Bearer 9f8e7d6c5b4a39281706f5e4 ok", "sent Bearer [REDACTED authorization] ok", []Kind{KindAuthorization}},
		// Stripe live keys (gitleaks' rule).
		{"stripe live", "STRIPE=" + stripeLive, "STRIPE=sk_live_[REDACTED stripe-access-token]", []Kind{"stripe-access-token"}},
		{"stripe restricted", "key " + stripeRK + "\n", "key rk_live_[REDACTED stripe-access-token]\n", []Kind{"stripe-access-token"}},
		// An Anthropic key glued to a word by '_'.
		{"anthropic glued", "ANTHROPIC_KEY_" + anthropicKey, "ANTHROPIC_KEY_sk-ant-api0[REDACTED anthropic key]", []Kind{KindAnthropic, KindOpenAI}},
		{"openai glued", "KEY_" + openaiKey, "KEY_sk-proj-Zq9x[REDACTED openai key]", []Kind{KindOpenAI}},
		// PGP private key blocks.
		{"pgp block", "a\n" + pgpBlock + "\nb", "a\n-----BEGIN PGP PRIVATE KEY BLOCK-----[REDACTED private key]\nb", []Kind{KindPrivateKey, "private-key"}},
		// Quoted passphrases with spaces are masked whole.
		{"quoted passphrase", `passphrase: "correct horse battery staple"`, `passphrase: "[REDACTED secret]"`, []Kind{KindAssignment}},
		{"quoted env", `export PGPASSWORD='my secret pass'`, `export PGPASSWORD='[REDACTED secret]'`, []Kind{KindAssignment}},
		{"escaped quotes in json", `{"command":"export DB_PASSWORD=\"s3cr3t pass\" && run"}`, `{"command":"export DB_PASSWORD=\"[REDACTED secret]\" && run"}`, []Kind{KindAssignment}},
		{"unclosed quote", `password = "hunter22 and more`, `password = "[REDACTED secret] and more`, []Kind{KindAssignment}},
		// Other gitleaks formats.
		{"gitlab pat", "GL=" + gitlabPAT, "GL=glpat-xY7k[REDACTED gitlab-pat]", []Kind{"gitlab-pat"}},
		{"curl user", "curl -u admin:Xk9vQ2mZ7t https://api.example.com", "curl -u [REDACTED curl-auth-user] https://api.example.com", []Kind{"curl-auth-user"}},

		// Lookalikes that stay.
		{"password policy", "password_policy: strict", "password_policy: strict", nil},
		{"token count", "token count: 5", "token count: 5", nil},
		{"max tokens", `"max_tokens": 4096, "input_tokens": 1234`, `"max_tokens": 4096, "input_tokens": 1234`, nil},
		{"secret name", "secret_name: prod-db", "secret_name: prod-db", nil},
		{"primary key", "primary_key: user_id", "primary_key: user_id", nil},
		{"token type", "token_type: bearer", "token_type: bearer", nil},
		{"url without credentials", "https://example.com:8080/path?q=a:b@c", "https://example.com:8080/path?q=a:b@c", nil},
		{"url with user only", "ssh://git@github.com/org/repo.git", "ssh://git@github.com/org/repo.git", nil},
		{"working directory", "PWD=/work/main\nOLDPWD=~/src", "PWD=/work/main\nOLDPWD=~/src", nil},
		{"null and types", "password: null\ntoken: string", "password: null\ntoken: string", nil},
		{"variable references", "DB_PASSWORD=$DB_PASSWORD API_KEY=${{ secrets.API_KEY }} TOKEN=%TOKEN%", "DB_PASSWORD=$DB_PASSWORD API_KEY=${{ secrets.API_KEY }} TOKEN=%TOKEN%", nil},
		{"placeholder", `password: "<your password>"`, `password: "<your password>"`, nil},
		{"password-stdin", "docker login --password-stdin < pw.txt", "docker login --password-stdin < pw.txt", nil},
		{"flag then flag", "tool --token --verbose", "tool --token --verbose", nil},
		{"comparison", `if token == "abcd1234" {`, `if token == "abcd1234" {`, nil},
		{"header template", "Authorization: Bearer\n", "Authorization: Bearer\n", nil},
		{"header reference", `-H "Authorization: Bearer $TOKEN"`, `-H "Authorization: Bearer $TOKEN"`, nil},
		{"bearer prose", "bearer tokens expire after an hour", "bearer tokens expire after an hour", nil},
		{"stripe low entropy", "sk_" + "live_" + strings.Repeat("a", 24), "sk_" + "live_" + strings.Repeat("a", 24), nil},
		{"curl allowlisted", "curl -u admin:changeme https://x", "curl -u admin:changeme https://x", nil},
	})
}

func TestSecretName(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"password", true}, {"DB_PASSWORD", true}, {"PGPASSWORD", true}, {"dbPassword", true}, {"passwd", true},
		{"db_pass", true}, {"pwd", true}, {"passphrase", true}, {"GOOGLE_CLIENT_SECRET", true}, {"clientSecret", true},
		{"GITHUB_TOKEN", true}, {"accessToken", true}, {"OAuth2Token", true}, {"csrftoken", true}, {"api_key", true},
		{"apikey", true}, {"APIKey", true}, {"x-api-key", true}, {"SECRET_KEY", true}, {"secretKey", true},
		{"AWS_SECRET_ACCESS_KEY", true}, {"private-key", true}, {"--password", true}, {"spring.datasource.password", true},
		{"password_policy", false}, {"token_count", false}, {"max_tokens", false}, {"secret_name", false},
		{"primary_key", false}, {"key", false}, {"ssh_key", false}, {"bypass", false}, {"passport", false},
		{"tokenizer", false}, {"AWS_ACCESS_KEY_ID", false}, {"password-stdin", false}, {"", false}, {"_", false},
	} {
		if got := secretName(tt.name); got != tt.want {
			t.Errorf("secretName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
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

// secrets are every fake secret above, for the fuzz and prefilter tests.
var secrets = []string{anthropicKey, openaiKey, openaiLegacy, ghpToken, ghoToken, githubPAT, awsKeyID, slackToken, googleKey, jwt, pemBlock, pgpBlock, stripeLive, stripeRK, gitlabPAT}

// FuzzMask: the prefilter never changes the answer, masking is idempotent
// and no recognised secret survives.
func FuzzMask(f *testing.F) {
	for _, s := range secrets {
		f.Add("before " + s + " after")
	}
	for _, s := range prefilterCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := Mask(s)
		if all := maskAll(s); m != all {
			t.Fatalf("the prefilter skipped a match: Mask(%q) = %q, every rule gives %q", s, m, all)
		}
		if Mask(m) != m {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, m, Mask(m))
		}
		for _, secret := range []string{ghpToken, githubPAT, slackToken, googleKey, jwt, gitlabPAT} {
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

// maskAll is Mask without the prefilter: every project rule over every
// text, and every gitleaks rule whose keyword the text holds, found by
// lower-casing the text and searching for each keyword.
func maskAll(s string) string {
	orig := s
	for i := range rules() {
		r := &rules()[i]
		if r.gl != nil && !holdsFold(orig, r.triggers) {
			continue
		}
		s = r.mask(s)
	}
	return s
}

// prefilterCases sit at the edges of the prefilters: case folding, markers
// split from their keys, words that merely look alike.
var prefilterCases = []string{
	"PASSWORD=hunter22", "Pass" + "word: \"hunter22\"", "paſſword=hunter22", "api_Key=abcd1234", "API-KEY = abcd1234",
	"ACCESS_TOKEN: abcd1234", "client-secret=abcd1234", "privatekey:abcd1234", "pwd=abcd", "token is set", "secret= ok",
	"through the high light", "ghp_" + strings.Repeat("x", 30), "xghs_" + strings.Repeat("A1", 15), "gh_p" + strings.Repeat("x", 30),
	"AKIA" + strings.Repeat("Z", 16), "akia" + strings.Repeat("Z", 16), "eyJhbGciOiJI.eyJzdWIiOiIx.abcdefghij", "xoxb-1234567890",
	"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----", "task-sk-" + strings.Repeat("a", 24),
	"Api_Key :\n\tabcd", "secret  =  \"abcd efgh\"", "a=1 pwd: hunter22, secret=xyzw;", "\u212apassword=abcd", "privat\u212aey=ab",
	"SK_LIVE_" + strings.Repeat("aB3", 8), "AUTHORIZATION: BEARER ABCD1234", "Https://U:P4ss@H", "--PASSWORD HUNTER22",
}

// TestMaskPrefiltersAreExact: the prefilter only ever skips a rule that
// cannot match, on every rule's own examples and at their edges.
func TestMaskPrefiltersAreExact(t *testing.T) {
	cases := append(append([]string{}, secrets...), prefilterCases...)
	for _, s := range cases {
		for _, text := range []string{s, "see " + s + " here", strings.ToUpper(s), strings.ToLower(s)} {
			if got, want := Mask(text), maskAll(text); got != want {
				t.Errorf("Mask(%q) = %q, every rule gives %q", text, got, want)
			}
		}
	}
}

// TestAutomatonFindsEveryTrigger holds the automaton to the plain
// definition (holdsFold) for every rule, on texts built from the triggers
// themselves: whole, cut short, in mixed case, glued to each other and to
// noise.
func TestAutomatonFindsEveryTrigger(t *testing.T) {
	rs := rules()
	var words []string
	for _, r := range rs {
		words = append(words, r.triggers...)
	}
	longest := ""
	for _, w := range words {
		if len(w) > len(longest) {
			longest = w
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	piece := func() string {
		w := words[rng.IntN(len(words))]
		switch rng.IntN(4) {
		case 0:
			w = w[:rng.IntN(len(w)+1)]
		case 1:
			w = strings.ToUpper(w)
		case 2:
			w = w[rng.IntN(len(w)+1):]
		}
		return w + strings.Repeat("x_ -:", rng.IntN(2))
	}
	for n := 0; n < 2000; n++ {
		var b strings.Builder
		for k := rng.IntN(4); k >= 0; k-- {
			b.WriteString(piece())
		}
		s := b.String()
		if n%4 == 0 {
			// A long text, scanned as four streams over its quarters: a
			// trigger or two in filler, often across a quarter's edge.
			filler := []byte(strings.Repeat("the quick brown fox, ", 40+rng.IntN(200)))
			for k := rng.IntN(3); k >= 0; k-- {
				w := piece()
				if rng.IntN(3) == 0 {
					w = longest // the overlap between streams is its length less one
				}
				at := rng.IntN(len(filler) - len(w))
				if rng.IntN(2) == 0 {
					at = max(0, min(len(filler)/4*(1+rng.IntN(3))-rng.IntN(len(w)+1), len(filler)-len(w)))
				}
				copy(filler[at:], w)
			}
			s = string(filler)
		}
		fired := automaton().scan(s)
		for i := range rs {
			if want := holdsFold(s, rs[i].triggers); fired.has(i) != want {
				t.Fatalf("scan(%q): rule %d (%s, triggers %q) fired = %v, want %v", s, i, rs[i].kind, rs[i].triggers, fired.has(i), want)
			}
		}
	}
}

// TestPrefilterTablesAreCurrent: the generated tables are those built
// from the rules' triggers as they are now (ownTriggers and the generated
// gitleaks rules). Run `go generate ./shared/redact` when it fails.
func TestPrefilterTablesAreCurrent(t *testing.T) {
	rs := rules()
	var triggers [][]string
	for i := range rs {
		triggers = append(triggers, rs[i].triggers)
	}
	want, err := ac.Build(triggers)
	if err != nil {
		t.Fatal(err)
	}
	got := automaton()
	outs := make([]ruleSet, len(want.Out))
	for i, o := range want.Out {
		outs[i] = o
	}
	if got.class != want.Class || got.stride != want.Stride || got.outFrom != want.OutFrom || got.maxLen != want.MaxLen ||
		!slices.Equal(got.delta, want.Delta) || !slices.Equal(got.out, outs) {
		t.Fatal("prefilter_tables.go is not built from the current triggers; run go generate ./shared/redact")
	}
}

// TestGitleaksRules checks the generated table: every regexp compiles,
// every rule has keywords, and the release named in gen.go is the one the
// table was generated from (run `go generate ./shared/redact` after
// changing it).
func TestGitleaksRules(t *testing.T) {
	if len(gitleaksRules) < 200 {
		t.Errorf("only %d gitleaks rules", len(gitleaksRules))
	}
	for i := range gitleaksRules {
		r := &gitleaksRules[i]
		re, err := regexp.Compile(r.regex)
		if err != nil {
			t.Errorf("%s: %v", r.id, err)
			continue
		}
		if len(r.groups) != re.NumSubexp()+1 {
			t.Errorf("%s: %d groups described, the regexp has %d", r.id, len(r.groups), re.NumSubexp()+1)
		}
		if len(r.keywords) == 0 {
			t.Errorf("%s: no keywords", r.id)
		}
		for _, a := range r.allow {
			for _, x := range a.regexes {
				if _, err := regexp.Compile(x); err != nil {
					t.Errorf("%s allowlist: %v", r.id, err)
				}
			}
		}
	}
	gen, err := os.ReadFile("gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gen), "-version "+gitleaksVersion+" ") {
		t.Errorf("gen.go pins another release than the table's %s; run go generate", gitleaksVersion)
	}
}

func TestShannonEntropy(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want float64
	}{{"", 0}, {"aaaa", 0}, {"ab", 1}, {"abcd", 2}, {"aabb", 1}} {
		if got := shannonEntropy(tt.s); got != tt.want {
			t.Errorf("shannonEntropy(%q) = %v, want %v", tt.s, got, tt.want)
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

// BenchmarkMaskCode masks source-like text full of the assignment rule's
// names and operators (tokens, keys, "="), which the prefilter lets
// through: the hand matchers at work.
func BenchmarkMaskCode(b *testing.B) {
	text := strings.Repeat("tokens := tokenize(input) // token count = len(tokens); apiKey = cfg.APIKey\n", 100)
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			Mask(text)
		}
	})
}

// TestGitleaksShortcuts holds the generated shortcuts to the regexps they
// stand in for: the anchored search (starts, maxLen) and the windowed one
// (window, before, maxLen) must find exactly what the regexp finds over
// the whole text, and every match must hold one literal of each required
// set. The texts are each rule's start literals
// followed by random key-like runs, in random context, and the samples.
func TestGitleaksShortcuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alpha = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	const punct = " \n\t_-./=+:'\"`;\\"
	run := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			if rng.IntN(12) == 0 {
				b[i] = punct[rng.IntN(len(punct))]
			} else {
				b[i] = alpha[rng.IntN(len(alpha))]
			}
		}
		return string(b)
	}
	var samples []string
	for _, s := range sampleTexts(t) {
		// The regexps over whole texts are the slow reference: short
		// texts keep the test quick.
		if len(s) < 4096 {
			samples = append(samples, s)
		}
	}
	matched := 0
	for i := range gitleaksRules {
		r := &gitleaksRules[i]
		re := regexp.MustCompile(r.regex)
		tree, err := syntax.Parse(r.regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		texts := samples[:0:0]
		for k := 0; k < 5; k++ {
			texts = append(texts, samples[rng.IntN(len(samples))])
		}
		for k := 0; k < 30; k++ {
			var b strings.Builder
			for n := rng.IntN(3); n >= 0; n-- {
				if rng.IntN(2) == 0 {
					b.WriteString(run(rng.IntN(4)))
				} else {
					// A long name before the keyword: gitleaks' service rules
					// start their match up to 50 name characters earlier.
					b.WriteString(strings.Repeat("aB3_", rng.IntN(20)) + run(rng.IntN(200)))
				}
				if rng.IntN(4) == 0 {
					lit := r.keywords[rng.IntN(len(r.keywords))]
					if rng.IntN(3) == 0 {
						lit = strings.ToUpper(lit)
					}
					b.WriteString(lit)
				} else {
					sampleRegexp(rng, tree, &b)
				}
				b.WriteString(run(rng.IntN(140) + rng.IntN(2)*rng.IntN(400)))
			}
			texts = append(texts, b.String())
		}
		var at *anchored
		if len(r.starts) > 0 {
			at = newAnchored(r.regex, r.starts, r.startsFold, r.maxLen)
		}
		found := false
		for _, s := range texts {
			want := re.FindAllStringSubmatchIndex(s, -1)
			found = found || want != nil
			for _, m := range want {
				for _, set := range r.literals {
					if !containsAny(s[m[0]:m[1]], set) {
						t.Fatalf("%s: match %q holds none of the required %q", r.id, s[m[0]:m[1]], set)
					}
				}
			}
			var got [][]int
			switch {
			case at != nil:
				got = at.findAll(s)
			case len(r.window) > 0 && r.maxLen > 0:
				got = windowed(re, s, r.window, r.before, r.maxLen)
			default:
				continue
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s on %q:\nshortcut %v\n  regexp %v", r.id, s, got, want)
			}
		}
		if found {
			matched++
		}
	}
	// The texts must exercise the shortcuts: nearly every rule finds
	// something (a few rules' assertions, $ or \b, rarely hold in random
	// context).
	if matched < len(gitleaksRules)*9/10 {
		t.Errorf("only %d of %d rules matched any test text", matched, len(gitleaksRules))
	}
}

// sampleRegexp appends to b a random string shaped by the regexp n: a
// literal (in random case where n folds case), a character of each class,
// a branch of each alternation, a few repeats. Most such strings match n
// (assertions are left to chance), which random text almost never does.
func sampleRegexp(rng *rand.Rand, n *syntax.Regexp, b *strings.Builder) {
	switch n.Op {
	case syntax.OpLiteral:
		for _, r := range n.Rune {
			if n.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		// An ASCII range where there is one.
		var ranges [][2]rune
		for i := 0; i < len(n.Rune); i += 2 {
			if n.Rune[i] < 0x80 {
				ranges = append(ranges, [2]rune{n.Rune[i], min(n.Rune[i+1], 0x7f)})
			}
		}
		if len(ranges) == 0 {
			ranges = append(ranges, [2]rune{n.Rune[0], n.Rune[1]})
		}
		rg := ranges[rng.IntN(len(ranges))]
		b.WriteRune(rg[0] + rune(rng.IntN(int(rg[1]-rg[0])+1)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("abc XYZ_09"[rng.IntN(10)])
	case syntax.OpCapture:
		sampleRegexp(rng, n.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range n.Sub {
			sampleRegexp(rng, s, b)
		}
	case syntax.OpAlternate:
		sampleRegexp(rng, n.Sub[rng.IntN(len(n.Sub))], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch n.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = n.Min, n.Max
			if hi < 0 || hi > lo+8 {
				hi = lo + 8
			}
		}
		for k := lo + rng.IntN(hi-lo+1); k > 0; k-- {
			sampleRegexp(rng, n.Sub[0], b)
		}
	}
}
