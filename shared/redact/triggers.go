package redact

// ownTriggers are the triggers of the project's rules (ownRules), at the
// same index: lower-case ASCII literals, one of which every text the rule
// masks holds, ASCII case-insensitively. The generator reads this literal
// to build the prefilter's tables with gitleaks' keywords, so it must stay
// a plain literal of strings; after changing it run
// `go generate ./shared/redact` (TestPrefilterTablesAreCurrent fails until
// then).
var ownTriggers = [][]string{
	{"private key"},                          // KindPrivateKey: BEGIN … PRIVATE KEY (BLOCK)
	{"sk-ant-"},                              // KindAnthropic
	{"sk-"},                                  // KindOpenAI
	{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, // KindGitHub
	{"github_pat_"},                          // KindGitHub, fine-grained
	{"akia", "asia"},                         // KindAWS
	{"xox"},                                  // KindSlack
	{"aiza"},                                 // KindGoogle
	{".eyj"},                                 // KindJWT: header "." payload
	{"://"},                                  // KindURLPassword
	{"authorization"},                        // KindAuthorization, headers
	{"bearer"},                               // KindAuthorization, bare bearer tokens
	// KindAssignment, names = value and --flags value: the stems every
	// secret name holds (see secretName).
	{"pass", "pwd", "secret", "token", "key"},
	{"pass", "pwd", "secret", "token", "key"},
}
