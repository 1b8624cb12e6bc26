#!/usr/bin/env bash
# need.sh — make sure system tools the tests run are on PATH, installing the
# missing ones from the system's packages where that is possible.
#
#   scripts/need.sh COMMAND[:PACKAGE] ...     e.g. scripts/need.sh rg:ripgrep jq
#
# PACKAGE defaults to COMMAND. On Debian and Ubuntu (apt-get) the missing
# packages are installed, as root or through sudo; on macOS with Homebrew
# through brew. Anywhere else, or when installing fails, it names what is
# missing and how to get it, and exits 1: a test that needs a tool fails up
# front with that message, never half-way with "command not found".
set -euo pipefail
missing=() pkgs=()
for spec in "$@"; do
	cmd=${spec%%:*} pkg=${spec#*:}
	command -v "$cmd" >/dev/null 2>&1 && continue
	missing+=("$cmd") pkgs+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "need.sh: installing ${pkgs[*]} (for ${missing[*]})" >&2
if command -v apt-get >/dev/null 2>&1; then
	sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${pkgs[@]}" >&2 || true
elif command -v brew >/dev/null 2>&1; then
	brew install "${pkgs[@]}" >&2 || true
fi
still=()
for cmd in "${missing[@]}"; do command -v "$cmd" >/dev/null 2>&1 || still+=("$cmd"); done
if [ ${#still[@]} -gt 0 ]; then
	echo "need.sh: ${still[*]} not found on PATH and could not be installed here; install the packages ${pkgs[*]} (apt-get install, brew install) and run again" >&2
	exit 1
fi
