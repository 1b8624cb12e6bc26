#!/usr/bin/env bash
# fuzz.sh — run every Fuzz* target in the repository for a fixed time each.
#
#   scripts/fuzz.sh [DURATION] [PACKAGES...]
#
# DURATION is a `go test -fuzztime` value (default 10s, the CI pass;
# `make fuzz` passes a longer one). PACKAGES defaults to ./... . Targets are
# discovered with `go test -list 'Fuzz.*'`, so a new target runs without
# editing this script. Go can fuzz one target per invocation, hence one run
# per target.
#
# A crasher makes `go test` write the failing input under the package's
# testdata/fuzz/<Target>/; commit that file: plain `go test` then replays it
# as a regression test forever. The script exits non-zero if any target
# failed and lists what it found.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
duration=${1:-10s}
shift || true
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)

# Fuzzing is CPU-bound; two workers leave the machine usable and keep a
# 10s pass meaningful on a small CI runner.
parallel=${FUZZ_PARALLEL:-2}

failed=()
count=0
while read -r pkg; do
	if ! listing=$(go test -list 'Fuzz.*' "$pkg" 2>&1); then
		echo "== $pkg: cannot list its tests:"
		echo "$listing"
		failed+=("$pkg (does not build)")
		continue
	fi
	targets=$(grep '^Fuzz' <<<"$listing" || true)
	for t in $targets; do
		count=$((count + 1))
		echo "== $pkg $t ($duration)"
		if ! go test -run '^$' -fuzz "^${t}\$" -fuzztime "$duration" -parallel "$parallel" "$pkg"; then
			failed+=("$pkg $t")
		fi
	done
done < <(go list "${pkgs[@]}")

echo
echo "fuzzed $count targets for $duration each"
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED targets (commit the new inputs under testdata/fuzz/ as regression tests):"
	printf '  %s\n' "${failed[@]}"
	git status --short -- '*/testdata/fuzz/*' 2>/dev/null
	exit 1
fi
