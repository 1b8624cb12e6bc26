#!/usr/bin/env bash
# demo.sh — the README's first command: notesoup on its bundled defaults.
# Points every harness's session root at the sample corpus (real sessions
# recorded from the pinned Claude Code, Pi and Codex CLIs), uses a throwaway
# notes home, and walks through what each step shows: the harness plugins,
# the cross-harness history, a search with its matches highlighted, a note,
# the boot block a fresh window gets, and the one a reset gives.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The binaries `make build` wrote (NOTESOUP_DEMO_BIN: others, for a test),
# first on PATH so each step reads as you would type it.
export PATH="${NOTESOUP_DEMO_BIN:-$root/bin}:$PATH"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

export CLAUDE_CONFIG_DIR="$root/samples/claude"
export PI_CODING_AGENT_DIR="$root/samples/pi"
export CODEX_HOME="$root/samples/codex"
export NOTESOUP_HOME="$home/notesoup"
export XDG_CACHE_HOME="$home/cache"
export GEMINI_CLI_HOME="$home/gemini" # no Gemini sessions in the samples
mkdir -p "$home/project/.git"
cd "$home/project" # short paths: the project is "."

# Bold and dim only on a terminal that wants colour; plain into a pipe.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
	bold=$'\033[1m' dim=$'\033[2m' off=$'\033[0m'
else
	bold='' dim='' off=''
fi
# say: the narration before a step, one line per argument.
say() {
	printf '\n'
	for line in "$@"; do printf '%s# %s%s\n' "$dim" "$line" "$off"; done
}
# step: print the command as it would be typed (quoted where needed), run it.
step() {
	local shown="" a
	for a in "$@"; do
		case $a in
			*[[:space:]\;\'\"\$\&\|\<\>\(\)\*\?]*) a="\"$a\"" ;;
		esac
		shown+="${shown:+ }$a"
	done
	printf '%s$ %s%s\n' "$bold" "$shown" "$off"
	"$@"
}

say "The harnesses notesoup reads, each a plugin (built in here)."
step notesoup plugins

say "Every session of every harness on this machine, newest first."
step notesoup history sessions --limit 6

say "One search across all of them; the matches are highlighted on a terminal."
step notesoup search "oat milk"

say "The matching entries of the newest session, each with its address (#N)."
step notesoup history list --session latest --query milk

say "A note the model would write: Markdown under \$NOTESOUP_HOME, per project."
printf '# Plan\n- the sample sessions all read notes.txt; one fork buys oat milk instead\n' >plan.md
step notesoup notes write plan.md --file plan.md
step notesoup notes list

say "The boot block a fresh Claude Code window of this project starts with."
step notesoup boot --harness claude --session demo

say "A reset: the window is emptied, and the next one starts from the boot block" \
	"plus the model's own last word and handoff, instead of the harness's lossy summary."
step notesoup boot --harness claude --session demo --ordinal 1 \
	--sticky "finish the oat milk plan" --handoff "Read plan.md; the fork chose oat milk; next: check notes.txt."
