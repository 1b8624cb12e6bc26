#!/usr/bin/env bash
# fuzz.sh — run every Fuzz* target in the repository for a fixed time each.
#
#   scripts/fuzz.sh [DURATION] [PACKAGES...]
#
# DURATION is a `go test -fuzztime` value: a time (`make fuzz` passes 2m)
# or a count of executions (`make fuzz-short`, the CI pass, passes one: a
# time limit races Go's fuzzing coordinator, golang/go#75804, fixed only in
# Go 1.27, which fails a target with "context deadline exceeded" and no
# input at all when the machine is busy). Default 10s. PACKAGES defaults to ./... . Targets are
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
explicit=1
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...) && explicit=0

# Fuzzing is CPU-bound; two workers leave the machine usable and keep a
# 10s pass meaningful on a small CI runner.
parallel=${FUZZ_PARALLEL:-2}

failed=()
flaked=()
count=0
# Each line is "module-dir package": the nested modules (a plugin such as
# harness/opencode, the example) are Go modules of their own, so their
# packages are listed and fuzzed from inside them. Explicit PACKAGES are the
# root module's.
list() {
	go list "${pkgs[@]}" | sed 's|^|. |'
	if [ "$explicit" = 0 ]; then
		for m in $(git ls-files '*/go.mod' | grep -v '^tools/'); do
			d=$(dirname "$m")
			(cd "$d" && go list ./...) | sed "s|^|$d |"
		done
	fi
}
while read -r dir pkg; do
	pushd "$root/$dir" >/dev/null
	if ! listing=$(go test -list 'Fuzz.*' "$pkg" 2>&1); then
		echo "== $pkg: cannot list its tests:"
		echo "$listing"
		failed+=("$pkg (does not build)")
		popd >/dev/null
		continue
	fi
	targets=$(grep '^Fuzz' <<<"$listing" || true)
	for t in $targets; do
		count=$((count + 1))
		echo "== $pkg $t ($duration)"
		corpus=$(go list -f '{{.Dir}}' "$pkg")/testdata/fuzz/$t
		before=$(ls "$corpus" 2>/dev/null | sort)
		out=$(go test -run '^$' -fuzz "^${t}\$" -fuzztime "$duration" -parallel "$parallel" "$pkg" 2>&1)
		rc=$?
		echo "$out"
		if [ $rc -ne 0 ]; then
			after=$(ls "$corpus" 2>/dev/null | sort)
			if [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' <<<"$out"; then
				flaked+=("$pkg $t") # the coordinator race above: no input failed
			else
				failed+=("$pkg $t")
			fi
		fi
	done
	popd >/dev/null
done < <(list)

echo
echo "fuzzed $count targets for $duration each"
if [ ${#flaked[@]} -gt 0 ]; then
	echo "stopped by Go's fuzztime deadline race (golang/go#75804; no failing input was written):"
	printf '  %s\n' "${flaked[@]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED targets (commit the new inputs under testdata/fuzz/ as regression tests):"
	printf '  %s\n' "${failed[@]}"
	git status --short -- '*/testdata/fuzz/*' 2>/dev/null
	exit 1
fi
