#!/usr/bin/env bash
# update-secret-rules.sh — move shared/redact to another gitleaks release's
# secret rules and regenerate its tables (shared/redact/gitleaks_rules.go,
# and prefilter_tables.go, the keyword prefilter built from them).
#
#   scripts/update-secret-rules.sh [VERSION]
#
# VERSION is a gitleaks release tag (v8.31.0); without one, the newest the
# Go module proxy knows. The rules are data, not a dependency: the
# generator (shared/redact/internal/gen) takes config/gitleaks.toml and the
# license from the module cache (`go mod download`, checked against the
# checksum database) and writes the table; go.mod does not change. The pin
# is the //go:generate line of shared/redact/gen.go, which this rewrites.
#
# Then review: `git diff --stat shared/redact`, the rules the generator
# left out (gitleaksSkipped at the end of the table), and run
# `go test ./shared/redact/...`. The generator stops on any key of
# gitleaks.toml it does not know, so a new gitleaks feature gets a human
# decision before it changes what is masked.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module=github.com/zricethezav/gitleaks/v8

version=${1:-}
if [ -z "$version" ]; then
	# Outside the project's module, so go.mod and go.sum stay untouched.
	version=$(cd "$(mktemp -d)" && GOFLAGS= go list -m -f '{{.Version}}' "$module@latest")
fi
case $version in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "update-secret-rules: not a release version: $version" >&2; exit 2 ;;
esac

gen=$root/shared/redact/gen.go
sed -i.bak -E "s|(//go:generate go run ./internal/gen -version )v[^ ]+|\1$version|" "$gen"
rm -f "$gen.bak"
grep -q -- "-version $version " "$gen" || { echo "update-secret-rules: could not pin $version in $gen" >&2; exit 1; }

cd "$root/shared/redact"
go generate .
echo "shared/redact: gitleaks rules from $module $version"
grep -c '^		id: ' gitleaks_rules.go | sed 's/^/rules used: /'
