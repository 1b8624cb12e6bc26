#!/usr/bin/env bash
# demo.sh — the README's first command: notesoup on its bundled defaults.
# Points every harness's session root at the sample corpus (real sessions
# recorded from the pinned Claude Code, Pi, Codex and Gemini CLIs), uses a throwaway
# notes home, and shows the cross-harness history, a search, a note and the
# boot block a fresh Claude Code window would get.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/bin/notesoup"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

export CLAUDE_CONFIG_DIR="$root/samples/claude"
export PI_CODING_AGENT_DIR="$root/samples/pi"
export CODEX_HOME="$root/samples/codex"
export GEMINI_CLI_HOME="$root/samples/gemini"
export NOTESOUP_HOME="$home/notesoup"
export XDG_CACHE_HOME="$home/cache"
mkdir -p "$home/project"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$bin" plugins
step "$bin" history sessions
step "$bin" search "oat milk"
step "$bin" history list --session latest --query milk
printf '# Plan\n- the sample sessions all read notes.txt; one fork buys oat milk instead\n' > "$home/plan.md"
step "$bin" notes write plan.md --cwd "$home/project" --file "$home/plan.md"
step "$bin" boot --harness claude --session demo --cwd "$home/project"
