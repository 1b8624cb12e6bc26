#!/usr/bin/env bash
# samples.sh — build the README demo corpus samples/ from the recorded
# transcripts, laid out as each harness's real storage root:
#   samples/claude/projects/<slug>/<sessionId>.jsonl      (~/.claude)
#   samples/pi/sessions/--<cwd>--/<time>_<id>.jsonl        (~/.pi/agent)
#   samples/codex/sessions/YYYY/MM/DD/rollout-….jsonl      ($CODEX_HOME)
#   samples/gemini/.gemini/tmp/<project>/chats/session-….jsonl ($GEMINI_CLI_HOME)
# The directory names are derived from the files themselves (cwd, file
# name), the way each harness derives them, so the corpus is what a real
# HOME would hold.
#
# Usage: e2e/samples.sh [TRANSCRIPTS_DIR] [SAMPLES_DIR]
#   defaults: testdata/transcripts samples
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${1:-$root/testdata/transcripts}
dst=${2:-$root/samples}
command -v jq >/dev/null || { echo "samples.sh: jq not found" >&2; exit 1; }

# The scenarios in the demo corpus: one plain session, one compaction, one
# fork per harness, plus each harness's own specialty (subagent, branch, MCP).
claude_scenarios=(tools compact fork subagent)
pi_scenarios=(tools compact fork branch)
codex_scenarios=(tools compact fork mcp)
gemini_scenarios=(tools compact)

rm -rf "$dst/claude" "$dst/pi" "$dst/codex" "$dst/gemini"

place() { # SRC_FILE DEST_DIR
	mkdir -p "$2"
	cp "$1" "$2/"
	echo "+ $1 -> $2/" >&2
}

for s in "${claude_scenarios[@]}"; do
	for f in "$src/claude/$s"/*.jsonl; do
		cwd=$(jq -r 'select(.cwd != null) | .cwd' "$f" | head -n 1)
		[ -n "$cwd" ] || { echo "samples.sh: no cwd in $f" >&2; exit 1; }
		# Claude Code's project slug: every char outside [A-Za-z0-9] becomes '-'.
		proj="$dst/claude/projects/$(printf '%s' "$cwd" | sed 's/[^A-Za-z0-9]/-/g')"
		place "$f" "$proj"
		# A session's subagent transcripts live in <sessionId>/subagents/.
		sub="${f%.jsonl}"
		if [ -d "$sub" ]; then
			mkdir -p "$proj"
			cp -r "$sub" "$proj/"
			echo "+ $sub/ -> $proj/" >&2
		fi
	done
done

for s in "${pi_scenarios[@]}"; do
	for f in "$src/pi/$s"/*.jsonl; do
		cwd=$(head -n 1 "$f" | jq -r '.cwd')
		# Pi's session dir: "--" + cwd without its leading slash, with / \ : → "-", + "--".
		enc=$(printf '%s' "${cwd#/}" | sed 's#[/\\:]#-#g')
		place "$f" "$dst/pi/sessions/--$enc--"
	done
done

for s in "${codex_scenarios[@]}"; do
	for f in "$src/codex/$s"/rollout-*.jsonl; do
		b=$(basename "$f")
		# rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl → sessions/YYYY/MM/DD/
		d=${b#rollout-}
		place "$f" "$dst/codex/sessions/${d:0:4}/${d:5:2}/${d:8:2}"
	done
done

for s in "${gemini_scenarios[@]}"; do
	# A recording is one project folder (chats/ and .project_root, which
	# names the working directory); each scenario gets its own folder, named
	# for it, as Gemini gives each project its own.
	proj="$dst/gemini/.gemini/tmp/$s"
	mkdir -p "$proj"
	cp -r "$src/gemini/$s/work/." "$proj/"
	echo "+ $src/gemini/$s/work/ -> $proj/" >&2
done

cat >"$dst/README.md" <<'MD'
# Sample session corpus

Real sessions recorded from the pinned Claude Code, Pi, Codex and Gemini CLIs (see
`testdata/transcripts/<harness>/README.md` for the exact commands), laid out
as each harness's storage root so tools can be pointed at them:

| harness | root here | real root |
|---|---|---|
| Claude Code | `samples/claude` | `~/.claude` (`projects/<slug>/<sessionId>.jsonl`) |
| Pi | `samples/pi` | `~/.pi/agent` (`sessions/--<cwd>--/<time>_<id>.jsonl`) |
| Codex | `samples/codex` | `~/.codex` (`sessions/YYYY/MM/DD/rollout-….jsonl`) |
| Gemini CLI | `samples/gemini` (`GEMINI_CLI_HOME`) | `~` (`.gemini/tmp/<project>/chats/session-….jsonl`) |

Each harness has a plain session with tool calls, one with a compaction, and a
fork (two files) — Gemini a plain session and one with a compression; Claude adds a subagent (sidechain files under
`<sessionId>/subagents/`), Pi an in-file branch, Codex an MCP tool call.
Regenerate with `e2e/samples.sh` after `e2e/record.sh testdata/transcripts`.
MD
echo "samples.sh: wrote $dst" >&2
