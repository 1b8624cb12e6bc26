#!/usr/bin/env bash
# install.sh — install the pinned coding-agent CLIs (Claude Code, Pi, Codex,
# Gemini CLI, OpenCode, Copilot CLI) into the project-local folder
# .tools/npm, from the committed
# e2e/package.json + e2e/package-lock.json (exact versions, integrity hashes).
#
# Usage: e2e/install.sh            (from anywhere inside the repo)
# Prints the tool paths and versions on stdout; progress on stderr.
# Idempotent: re-running with an unchanged lock file is a quick no-op check.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix="$root/.tools/npm"

command -v npm >/dev/null || { echo "install.sh: npm not found on PATH; install Node.js (>=20) first" >&2; exit 1; }

mkdir -p "$prefix"
# npm installs what package.json + package-lock.json in the prefix say; copy
# the committed pair in so the install is reproducible.
cp "$root/e2e/package.json" "$root/e2e/package-lock.json" "$prefix/"

echo "+ npm install --prefix $prefix --no-audit --no-fund" >&2
npm install --prefix "$prefix" --no-audit --no-fund >&2

# The lock must not have moved: a drift means package.json and the lock
# disagree, and recordings would no longer be from the pinned versions.
if ! cmp -s "$prefix/package-lock.json" "$root/e2e/package-lock.json"; then
	echo "install.sh: npm rewrote package-lock.json; e2e/package.json and e2e/package-lock.json disagree." >&2
	echo "  Fix: regenerate the lock (npm install --prefix .tools/npm) and commit it as e2e/package-lock.json." >&2
	exit 1
fi

# Claude Code's launcher package relies on a postinstall script (not run by
# npm >= 11 without allowScripts); the platform package holds the native
# binary, which record.sh runs directly.
claude="$prefix/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
pi="$prefix/node_modules/.bin/pi"
codex="$prefix/node_modules/.bin/codex"
gemini="$prefix/node_modules/.bin/gemini"
# OpenCode's and Copilot's launchers are node scripts that pick the native
# binary of the platform package; the tests run that binary directly.
opencode="$prefix/node_modules/opencode-linux-x64/bin/opencode"
copilot="$prefix/node_modules/@github/copilot-linux-x64/copilot"

check() { # name path want-version-substring args...
	local name=$1 path=$2 want=$3; shift 3
	[ -x "$path" ] || { echo "install.sh: $name not found at $path" >&2; exit 1; }
	local got
	got=$(HOME="$prefix/.probe-home" "$path" "$@" 2>&1 | grep -v -e WARNING -e "^$" | head -n1)
	case "$got" in
	*"$want"*) printf '%s\t%s\t%s\n' "$name" "$got" "$path" ;;
	*) echo "install.sh: $name at $path reports version '$got', want $want" >&2; exit 1 ;;
	esac
}
mkdir -p "$prefix/.probe-home"
check claude "$claude" 2.1.332 --version
check pi "$pi" 0.73.1 --version
check codex "$codex" 0.171.0 --version
check gemini "$gemini" 0.61.0 --version
check opencode "$opencode" 1.18.33 --version
check copilot "$copilot" 1.0.102 --version
rm -rf "$prefix/.probe-home"
