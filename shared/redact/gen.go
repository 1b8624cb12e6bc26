package redact

// The gitleaks release whose rules gitleaks_rules.go holds. To move to a
// newer one run scripts/update-secret-rules.sh, which rewrites this line
// and regenerates the tables (the rules, and the prefilter built from them
// and ownTriggers).
//go:generate go run ./internal/gen -version v8.30.1 -out gitleaks_rules.go -tables prefilter_tables.go -triggers triggers.go
