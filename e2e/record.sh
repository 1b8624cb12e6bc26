#!/usr/bin/env bash
# record.sh — run the real coding-agent CLIs headless against the
# scripted model server (testkit/cmd/modelserver) and collect the session
# files they write, as golden inputs for the decoders and e2e tests.
#
# Usage: e2e/record.sh OUTDIR [SCENARIO...]
#   OUTDIR    receives OUTDIR/<harness>/<scenario>/<session files> and a
#             generated OUTDIR/<harness>/README.md (commands per file).
#             The repo's goldens: e2e/record.sh testdata/transcripts
#   SCENARIO  harness/name, e.g. claude/tools; default: all (see -l).
#   -l        list the scenarios and exit.
#   -r OUTDIR only regenerate OUTDIR/<harness>/README.md from the command
#             logs already there (no recording).
#
# Isolation: every scenario runs in a fresh workspace
# $RECORD_ROOT/<harness>-<scenario>/ (default RECORD_ROOT=/tmp/notesoup-record)
# with its own HOME, an environment emptied by `env -i`, fake credentials and
# base URLs on 127.0.0.1. Nothing can reach a real model API. A fixed
# workspace path keeps the paths inside the transcripts the same run to run.
#
# Needs: e2e/install.sh done (the CLIs in .tools/npm), go, git, jq.
# Prints every command it runs to stderr; exits non-zero on the first failure
# and leaves the workspace for inspection.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scenarios_dir="$root/e2e/scenarios"
tools="$root/.tools/npm/node_modules"
CLAUDE="$tools/@anthropic-ai/claude-code-linux-x64/claude"
PI="$tools/.bin/pi"
CODEX="$tools/.bin/codex"
OPENCODE="$tools/opencode-linux-x64/bin/opencode"
GEMINI="$tools/.bin/gemini"
COPILOT="$tools/@github/copilot-linux-x64/copilot"
RECORD_ROOT=${RECORD_ROOT:-/tmp/notesoup-record}
# CLI_TIMEOUT bounds one CLI run. Agents retry a dead server for minutes;
# a scripted run takes seconds, so anything longer is a failure.
CLI_TIMEOUT=${CLI_TIMEOUT:-180}

ALL_SCENARIOS=(
	claude/tools claude/compact claude/autocompact claude/resume claude/fork claude/subagent claude/errors claude/fork-compacted
	pi/tools pi/compact pi/resume pi/fork pi/branch pi/errors pi/fork-compacted
	codex/tools codex/compact codex/resume codex/fork codex/mcp codex/errors codex/fork-compacted
	opencode/tools opencode/subagent opencode/compact
	gemini/tools gemini/resume gemini/compact gemini/errors
	copilot/tools copilot/resume copilot/compact copilot/autocompact copilot/errors
)

die() { echo "record.sh: $*" >&2; exit 1; }

orig_args=("$@")

if [ "${1:-}" = "-l" ]; then printf '%s\n' "${ALL_SCENARIOS[@]}"; exit 0; fi
readme_only=""
if [ "${1:-}" = "-r" ]; then readme_only=1; shift; fi
[ $# -ge 1 ] || die "usage: e2e/record.sh OUTDIR [harness/scenario...]  (-l lists scenarios)"
mkdir -p "$1"
out=$(cd "$1" && pwd)
shift
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${ALL_SCENARIOS[@]}")
for s in "${selected[@]}"; do
	printf '%s\n' "${ALL_SCENARIOS[@]}" | grep -qx -- "$s" || die "unknown scenario '$s'; run e2e/record.sh -l for the list"
done

for t in "$CLAUDE" "$PI" "$CODEX" "$OPENCODE" "$GEMINI" "$COPILOT"; do
	[ -x "$t" ] || die "$t missing; run e2e/install.sh first"
done
for c in go git jq node; do command -v "$c" >/dev/null || die "$c not found on PATH"; done
# OpenCode keeps its sessions in SQLite (sqlite3 checkpoints the recorded
# database) and its search tools run ripgrep.
if printf '%s\n' "${selected[@]}" | grep -q '^opencode/'; then
	for c in sqlite3 rg; do command -v "$c" >/dev/null || die "$c not found on PATH; OpenCode's scenarios need it (install sqlite3 and ripgrep)"; done
fi

bin="$RECORD_ROOT/bin"
mkdir -p "$bin"
# Built once, outside the network namespace below (the re-run skips it).
if [ -z "${_RECORD_IN_NETNS:-}" ]; then
	echo "+ go build -o $bin/ ./testkit/cmd/modelserver ./testkit/cmd/echomcp" >&2
	(cd "$root" && go build -o "$bin/" ./testkit/cmd/modelserver ./testkit/cmd/echomcp)
fi

# Network isolation: when the kernel allows it (root, or user namespaces),
# re-run this script inside a fresh network namespace whose only interface
# is loopback, so no CLI can reach anything but the model server, whatever
# it tries. RECORD_NETNS=off skips this; RECORD_NETNS=on makes it mandatory.
if [ "${RECORD_NETNS:-auto}" != off ] && [ -z "${_RECORD_IN_NETNS:-}" ]; then
	if unshare -n true 2>/dev/null && command -v ip >/dev/null; then
		echo "+ unshare -n: re-running in a loopback-only network namespace" >&2
		exec env _RECORD_IN_NETNS=1 unshare -n bash -c 'ip link set lo up && exec "$@"' record.sh "$0" "${orig_args[@]}"
	elif [ "${RECORD_NETNS:-auto}" = on ]; then
		die "RECORD_NETNS=on but a network namespace cannot be created here (unshare -n failed)"
	else
		echo "record.sh: note: no network namespace available; isolation rests on the fake base URLs and credentials" >&2
	fi
fi

# ---------------------------------------------------------------------------
# Workspace, server and logging helpers. W is the current workspace.

W=""
server_pid=""
URL=""
cmdlog=""

# setup HARNESS SCENARIO: fresh workspace with home/, work/ (a git repo with
# one file), logs/.
setup() {
	W="$RECORD_ROOT/$1-$2"
	URL=""
	rm -rf "$W"
	mkdir -p "$W/home" "$W/work" "$W/logs" "$W/tmp"
	chmod 700 "$W/tmp"
	echo "buy milk" >"$W/work/notes.txt"
	git -C "$W/work" init -q
	cmdlog="$W/logs/commands.txt"
	: >"$cmdlog"
	if [ -n "${_RECORD_IN_NETNS:-}" ]; then
		echo "# network: a loopback-only namespace (unshare -n); nothing but 127.0.0.1 was reachable" >>"$cmdlog"
	fi
}

# show ARGS...: print a command on stderr and in the scenario's command log,
# with the workspace path written as $W.
show() {
	local line
	line=$(printf '%q ' "$@")
	line=${line% }
	line=${line//"$W"/'$W'}
	line=${line//"$root"/'$REPO'}
	[ -z "$URL" ] || line=${line//"$URL"/'$URL'}
	line=${line//"$bin"/'$BIN'}
	echo "+ $line" >&2
	echo "$line" >>"$cmdlog"
}

# show_file PATH: record a config file the scenario wrote, as the heredoc
# that would recreate it.
show_file() {
	local body
	body=$(cat "$1")
	body=${body//"$W"/'$W'}
	[ -z "$URL" ] || body=${body//"$URL"/'$URL'}
	body=${body//"$bin"/'$BIN'}
	local p=${1//"$W"/'$W'}
	echo "+ cat > $p" >&2
	printf "cat > %s <<'EOF'\n%s\nEOF\n" "$p" "$body" >>"$cmdlog"
}

# start_server SCRIPT: run the model server on a free port for this
# scenario; sets URL.
start_server() {
	local script="$scenarios_dir/$1"
	[ -f "$script" ] || die "scenario script $script missing"
	rm -f "$W/url"
	show "$bin/modelserver" -script "$script" -var "WORK=$W/work" -log "$W/logs/requests.jsonl" -url-file "$W/url"
	"$bin/modelserver" -script "$script" -var "WORK=$W/work" -log "$W/logs/requests.jsonl" -url-file "$W/url" \
		>"$W/logs/server.out" 2>"$W/logs/server.err" &
	server_pid=$!
	local i
	for i in $(seq 100); do
		[ -s "$W/url" ] && break
		kill -0 "$server_pid" 2>/dev/null || { cat "$W/logs/server.err" >&2; die "model server exited at start"; }
		sleep 0.1
	done
	[ -s "$W/url" ] || die "model server did not report its URL within 10s"
	URL=$(cat "$W/url")
	echo "  model server at $URL" >&2
	echo "# model server URL is \$URL (a free port on 127.0.0.1)" >>"$cmdlog"
}

# stop_server: stop the server; fail when it saw requests the script did not
# cover (exit 3) — a recording that went off script is not a golden.
stop_server() {
	[ -n "$server_pid" ] || return 0
	kill -TERM "$server_pid"
	local rc=0
	wait "$server_pid" || rc=$?
	server_pid=""
	if [ $rc -ne 0 ]; then
		cat "$W/logs/server.err" >&2
		die "model server exited $rc (3 = requests the script did not cover); see $W/logs/requests.jsonl"
	fi
}

cleanup() {
	if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# isolated [VAR=value...] CMD ARGS...: run CMD with an emptied environment
# (only what the CLIs need, a workspace HOME, UTC) plus the given VAR=value
# pairs, bounded by CLI_TIMEOUT.
isolated() {
	local envs=()
	while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
		envs+=("$1")
		shift
	done
	env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$W/home" TMPDIR="$W/tmp" TZ=UTC LANG=C.UTF-8 \
		SHELL=/bin/bash TERM=dumb NO_COLOR=1 "${envs[@]}" timeout "$CLI_TIMEOUT" "$@"
}

# run_cli LOGNAME ARGS...: show and run a CLI command in $W/work with the
# isolated environment, stdout to logs/LOGNAME.out, stderr to .err, stdin
# from /dev/null, bounded by CLI_TIMEOUT.
run_cli() {
	local name=$1
	shift
	show "$@"
	local rc=0
	(cd "$W/work" && isolated "$@" </dev/null >"$W/logs/$name.out" 2>"$W/logs/$name.err") || rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 20 "$W/logs/$name.err" >&2
		die "command failed with exit $rc (logs in $W/logs/$name.*)"
	fi
}

# collect HARNESS SCENARIO [-C BASE] FILE...: copy session files into the
# output and save the scenario's command log beside them. With -C, files
# keep their path relative to BASE (Claude's subagents/ directories);
# otherwise they are copied flat.
collect() {
	local h=$1 s=$2 base=""
	shift 2
	if [ "${1:-}" = "-C" ]; then
		base=$2
		shift 2
	fi
	local dest="$out/$h/$s"
	rm -rf "$dest"
	mkdir -p "$dest"
	local f rel
	for f in "$@"; do
		[ -s "$f" ] || die "expected session file $f is missing or empty"
		# Credentials must never end up in a golden. The fake ones would be
		# harmless, but finding them would mean the CLI stores keys in its
		# transcripts, which the decoders must then know about.
		if grep -q -e 'sk-fake' -e 'fake-key-literal' -e 'fake-gemini-key' "$f"; then die "$f contains the fake credential"; fi
		rel=$(basename "$f")
		[ -z "$base" ] || rel=${f#"$base"/}
		mkdir -p "$(dirname "$dest/$rel")"
		cp "$f" "$dest/$rel"
	done
	cp "$cmdlog" "$dest/commands.txt"
	echo "  collected $# file(s) into $dest" >&2
}

# require FILE JQ_FILTER WHAT: fail unless the JSONL file has a line the
# filter selects — the scenario must have produced what it is named after.
require() {
	local n
	n=$(jq -c "$2" "$1" | wc -l)
	[ "$n" -gt 0 ] || die "$(basename "$1"): expected $3, found none"
	echo "  ok: $3 in $(basename "$1")" >&2
}

# ---------------------------------------------------------------------------
# Claude Code. The transcript lives in ~/.claude/projects/<slug>/<id>.jsonl.
# --tools and --system-prompt keep the recorded files small (the default
# prompt and tool list add ~100 KB of snapshots per request).

claude_env=()
claude_setup() {
	claude_env=(ANTHROPIC_API_KEY=sk-fake "ANTHROPIC_BASE_URL=$URL" IS_SANDBOX=1
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "CLAUDE_CODE_TMPDIR=$W/tmp" DISABLE_AUTOUPDATER=1)
}
claude_flags=(--output-format stream-json --verbose --dangerously-skip-permissions
	--tools Bash,Read,Write --system-prompt 'You are a coding agent under test.')

claude_project() { echo "$W/home/.claude/projects/$(echo "$W/work" | sed 's/[^A-Za-z0-9]/-/g')"; }

# Fixed session ids make the file names stable across re-recordings.
SID_TOOLS=0b5e8a61-7c1d-4f3e-9a2b-000000000001
SID_COMPACT=0b5e8a61-7c1d-4f3e-9a2b-000000000002
SID_AUTO=0b5e8a61-7c1d-4f3e-9a2b-000000000003
SID_RESUME=0b5e8a61-7c1d-4f3e-9a2b-000000000004
SID_FORK=0b5e8a61-7c1d-4f3e-9a2b-000000000005

scenario_claude_tools() {
	setup claude tools
	start_server claude-tools.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Print a greeting, then list the directory and read notes.txt' \
		--session-id "$SID_TOOLS" "${claude_flags[@]}"
	stop_server
	collect claude tools "$(claude_project)/$SID_TOOLS.jsonl"
}

# compact: a turn with a Read call, a manual /compact on resume (the
# summarizer request is answered by the script's "summarize" rule), then a
# prompt after the compaction.
scenario_claude_compact() {
	setup claude compact
	start_server claude-compact.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Read notes.txt and remember what it says' \
		--session-id "$SID_COMPACT" "${claude_flags[@]}"
	run_cli run2 "${claude_env[@]}" "$CLAUDE" -p '/compact keep the shopping list in mind' \
		--resume "$SID_COMPACT" "${claude_flags[@]}"
	run_cli run3 "${claude_env[@]}" "$CLAUDE" -p 'What did the note say?' \
		--resume "$SID_COMPACT" "${claude_flags[@]}"
	stop_server
	require "$(claude_project)/$SID_COMPACT.jsonl" 'select(.subtype=="compact_boundary" and .compactMetadata.trigger=="manual")' "a manual compact_boundary"
	collect claude compact "$(claude_project)/$SID_COMPACT.jsonl"
}

# autocompact: a 100k compaction window (threshold 67k); the second run's
# tool-call reply reports 99k input tokens, so Claude Code compacts mid-turn
# after the tool call, then finishes the turn. (With a single prompt in the
# session the compaction fails with "too_few_groups", hence two runs.)
scenario_claude_autocompact() {
	setup claude autocompact
	start_server claude-autocompact.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Read notes.txt' --autocompact 100000 \
		--session-id "$SID_AUTO" "${claude_flags[@]}"
	run_cli run2 "${claude_env[@]}" "$CLAUDE" -p 'Print a greeting' --autocompact 100000 \
		--resume "$SID_AUTO" "${claude_flags[@]}"
	stop_server
	require "$(claude_project)/$SID_AUTO.jsonl" 'select(.subtype=="compact_boundary" and .compactMetadata.trigger=="auto")' "an auto compact_boundary"
	collect claude autocompact "$(claude_project)/$SID_AUTO.jsonl"
}

# resume: a second -p run with --resume appends to the same file.
scenario_claude_resume() {
	setup claude resume
	start_server claude-resume.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Hi there' --session-id "$SID_RESUME" "${claude_flags[@]}"
	run_cli run2 "${claude_env[@]}" "$CLAUDE" -p 'Print the word resumed' --resume "$SID_RESUME" "${claude_flags[@]}"
	stop_server
	collect claude resume "$(claude_project)/$SID_RESUME.jsonl"
}

# fork: --resume --fork-session copies the chain into a new file with a new
# (random) session id; the original file is untouched.
scenario_claude_fork() {
	setup claude fork
	start_server claude-fork.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Read notes.txt' --session-id "$SID_FORK" "${claude_flags[@]}"
	run_cli run2 "${claude_env[@]}" "$CLAUDE" -p 'Let us buy oat milk instead' --resume "$SID_FORK" --fork-session "${claude_flags[@]}"
	stop_server
	local files
	files=$(find "$(claude_project)" -maxdepth 1 -name '*.jsonl' | sort)
	[ "$(echo "$files" | wc -l)" -eq 2 ] || die "fork: want 2 session files, got: $files"
	# shellcheck disable=SC2086
	collect claude fork $files
}

# subagent: the main agent calls the Agent tool in the foreground; the
# subagent's requests (system header cc_is_subagent=true) are answered by
# the script's rules, so its rows land in <id>/subagents/agent-*.jsonl.
SID_SUB=0b5e8a61-7c1d-4f3e-9a2b-000000000006
scenario_claude_subagent() {
	setup claude subagent
	start_server claude-subagent.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Use a subagent to read notes.txt' --session-id "$SID_SUB" \
		--output-format stream-json --verbose --dangerously-skip-permissions \
		--tools Agent,Bash --system-prompt 'You are a coding agent under test.'
	stop_server
	local p files
	p=$(claude_project)
	files=$(find "$p" -type f \( -name '*.jsonl' -o -name '*.meta.json' \) | sort)
	require "$p/$SID_SUB.jsonl" 'select(.type=="assistant") | .message.content[] | select(.type=="tool_use" and .name=="Agent")' "an Agent tool_use"
	echo "$files" | grep -q '/subagents/agent-.*\.jsonl$' || die "subagent: no subagents/agent-*.jsonl written"
	# shellcheck disable=SC2086
	collect claude subagent -C "$p" $files
}

# ---------------------------------------------------------------------------
# Pi. Sessions live in ~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl; the
# provider is a custom openai-completions one from models.json.

pi_setup() { # CONTEXT_WINDOW
	mkdir -p "$W/home/.pi/agent"
	cat >"$W/home/.pi/agent/models.json" <<EOF
{ "providers": { "fake": {
    "baseUrl": "$URL/v1",
    "api": "openai-completions",
    "apiKey": "fake-key-literal",
    "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
    "models": [ { "id": "fake-model", "name": "Fake Model", "reasoning": false, "input": ["text"],
                  "contextWindow": ${1:-32000}, "maxTokens": 4096 } ] } } }
EOF
	show_file "$W/home/.pi/agent/models.json"
}
pi_env=(PI_OFFLINE=1 PI_TELEMETRY=0)
pi_flags=(-nc --provider fake --model fake-model)
pi_sessions() { find "$W/home/.pi/agent/sessions" -name '*.jsonl' | sort; }

scenario_pi_tools() {
	setup pi tools
	start_server pi-tools.json
	pi_setup
	run_cli run1 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" 'Read notes.txt, print a greeting and list the directory'
	stop_server
	# shellcheck disable=SC2046
	collect pi tools $(pi_sessions)
}

# pi_session: the one session file of the workspace (fails if not exactly one).
pi_session() {
	local files
	files=$(pi_sessions)
	[ -n "$files" ] && [ "$(echo "$files" | wc -l)" -eq 1 ] || die "want exactly one pi session file, got: ${files:-none}"
	echo "$files"
}

# compact: settings make the threshold reachable (contextWindow 32000 −
# reserveTokens 2000); the second prompt's reply reports 31000 input tokens,
# so Pi compacts after that run (a split-turn compaction: the summarizer
# requests are answered by the script's "summarize" rule); a third prompt
# follows the compaction.
scenario_pi_compact() {
	setup pi compact
	start_server pi-compact.json
	pi_setup
	echo '{ "compaction": { "enabled": true, "reserveTokens": 2000, "keepRecentTokens": 30 } }' >"$W/home/.pi/agent/settings.json"
	show_file "$W/home/.pi/agent/settings.json"
	run_cli run1 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" 'Read notes.txt and remember it'
	local f
	f=$(pi_session)
	run_cli run2 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" 'Make it oat milk'
	run_cli run3 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" 'What should I buy?'
	stop_server
	require "$f" 'select(.type=="compaction")' "a compaction entry"
	collect pi compact "$f"
}

# resume: --session FILE appends to the same file.
scenario_pi_resume() {
	setup pi resume
	start_server pi-resume.json
	pi_setup
	run_cli run1 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" 'Hi there'
	local f
	f=$(pi_session)
	run_cli run2 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" 'Print the word resumed'
	stop_server
	collect pi resume "$f"
}

# fork: --fork FILE writes a new session file whose header names the parent
# (parentSession) and which copies the parent's path.
scenario_pi_fork() {
	setup pi fork
	start_server pi-fork.json
	pi_setup
	run_cli run1 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" 'Read notes.txt'
	local f
	f=$(pi_session)
	run_cli run2 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --fork "$f" 'Let us buy oat milk instead'
	stop_server
	local files
	files=$(pi_sessions)
	[ "$(echo "$files" | wc -l)" -eq 2 ] || die "fork: want 2 session files, got: $files"
	local child
	for child in $files; do [ "$child" = "$f" ] || break; done
	require "$child" 'select(.type=="session" and .parentSession != null)' "a header with parentSession"
	# shellcheck disable=SC2086
	collect pi fork $files
}

# branch: an in-file branch. After two prompts, the /branch command of the
# e2e/pi-branch.ts extension moves the leaf back to the first answer
# (navigateTree with a branch summary, answered by the script's rule) and a
# fourth prompt grows a second child there.
scenario_pi_branch() {
	setup pi branch
	start_server pi-branch.json
	pi_setup
	run_cli run1 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" 'Read notes.txt'
	local f target
	f=$(pi_session)
	target=$(jq -r 'select(.type=="message" and .message.role=="assistant") | .id' "$f" | tail -n 1)
	[ -n "$target" ] || die "branch: no assistant entry in $f"
	run_cli run2 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" 'Make it oat milk'
	run_cli run3 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" -e "$root/e2e/pi-branch.ts" "/branch $target"
	run_cli run4 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" 'Make it almond milk'
	stop_server
	require "$f" 'select(.type=="branch_summary")' "a branch_summary entry"
	collect pi branch "$f"
}

# ---------------------------------------------------------------------------
# Codex. Rollouts live in $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl
# (local time; TZ=UTC here). The provider is a custom Responses one.

codex_setup() {
	mkdir -p "$W/home/.codex"
	cat >"$W/home/.codex/config.toml" <<EOF
model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "Fake loopback"
base_url = "$URL/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
EOF
	show_file "$W/home/.codex/config.toml"
}
codex_env() { echo "CODEX_HOME=$W/home/.codex" FAKE_API_KEY=sk-fake; }
codex_sessions() { find "$W/home/.codex/sessions" -name 'rollout-*.jsonl' | sort; }

scenario_codex_tools() {
	setup codex tools
	start_server codex-tools.json
	codex_setup
	# shellcheck disable=SC2046
	run_cli run1 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" 'Print a greeting, read notes.txt and list the directory'
	stop_server
	# shellcheck disable=SC2046
	collect codex tools $(codex_sessions)
}

# codex_thread FILE: the thread id, the last 36 characters of the name.
codex_thread() { local b; b=$(basename "$1" .jsonl); echo "${b: -36}"; }

# codex_session: the one rollout of the workspace (fails if not exactly one).
codex_session() {
	local files
	files=$(codex_sessions)
	[ -n "$files" ] && [ "$(echo "$files" | wc -l)" -eq 1 ] || die "want exactly one codex rollout, got: ${files:-none}"
	echo "$files"
}

# compact: model_auto_compact_token_limit=50000 and a tool-call reply that
# reports 80000 input tokens, so Codex compacts mid-turn (the compaction
# request is answered by the script's "summarize" rule), then finishes.
scenario_codex_compact() {
	setup codex compact
	start_server codex-compact.json
	codex_setup
	# shellcheck disable=SC2046
	run_cli run1 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" -c model_auto_compact_token_limit=50000 'Read notes.txt'
	stop_server
	local f
	f=$(codex_session)
	require "$f" 'select(.type=="compacted")' "a compacted line"
	collect codex compact "$f"
}

# resume: `exec resume <thread>` appends to the same rollout.
scenario_codex_resume() {
	setup codex resume
	start_server codex-resume.json
	codex_setup
	# shellcheck disable=SC2046
	run_cli run1 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" 'Hi there'
	local f
	f=$(codex_session)
	# shellcheck disable=SC2046
	run_cli run2 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" resume "$(codex_thread "$f")" 'Print the word resumed'
	stop_server
	codex_session >/dev/null
	collect codex resume "$f"
}

# fork: `exec fork <thread>` writes a new rollout whose session_meta names
# the parent (forked_from_id, history_base) without copying its lines.
scenario_codex_fork() {
	setup codex fork
	start_server codex-fork.json
	codex_setup
	# shellcheck disable=SC2046
	run_cli run1 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" 'Read notes.txt'
	local f
	f=$(codex_session)
	# shellcheck disable=SC2046
	run_cli run2 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" fork "$(codex_thread "$f")" 'Let us buy oat milk instead'
	stop_server
	local files child
	files=$(codex_sessions)
	[ "$(echo "$files" | wc -l)" -eq 2 ] || die "fork: want 2 rollouts, got: $files"
	for child in $files; do [ "$child" = "$f" ] || break; done
	require "$child" 'select(.type=="session_meta" and .payload.forked_from_id != null)' "a session_meta with forked_from_id"
	# shellcheck disable=SC2086
	collect codex fork $files
}

# mcp: the echomcp stdio server (testkit/cmd/echomcp) wired as MCP server
# "echo"; the model calls its tool as namespace mcp__echo, name echo.
scenario_codex_mcp() {
	setup codex mcp
	start_server codex-mcp.json
	codex_setup
	cat >>"$W/home/.codex/config.toml" <<EOF

[mcp_servers.echo]
command = "$bin/echomcp"
args = ["-log", "$W/logs/echomcp.jsonl"]
startup_timeout_sec = 20
tool_timeout_sec = 60
default_tools_approval_mode = "approve"
EOF
	show_file "$W/home/.codex/config.toml"
	# shellcheck disable=SC2046
	run_cli run1 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" 'Call the echo tool with: ping from the model'
	stop_server
	local f
	f=$(codex_session)
	require "$f" 'select(.type=="response_item" and .payload.type=="function_call" and .payload.namespace=="mcp__echo")' "an MCP function_call"
	require "$f" 'select(.type=="response_item" and .payload.type=="function_call_output") | select(.payload.output | tostring | test("PING FROM THE MODEL"))' "the MCP tool's output"
	[ -s "$W/logs/echomcp.jsonl" ] || die "mcp: echomcp logged no call"
	collect codex mcp "$f"
}

# run_cli_any LOGNAME ARGS...: like run_cli, but a non-zero exit is expected
# (an API error scenario); the exit status is logged, a timeout still fails.
run_cli_any() {
	local name=$1
	shift
	show "$@"
	local rc=0
	(cd "$W/work" && isolated "$@" </dev/null >"$W/logs/$name.out" 2>"$W/logs/$name.err") || rc=$?
	[ $rc -ne 124 ] || die "command timed out after ${CLI_TIMEOUT}s (logs in $W/logs/$name.*)"
	echo "# exit status $rc (expected: the model API answered 400)" >>"$cmdlog"
	echo "  exit status $rc" >&2
}

# errors (all harnesses): a tool call that fails (cat of a missing file),
# then a resumed prompt the model API answers with HTTP 400 (a rule, as
# Claude Code retries a 400 once without one of its betas), so the session
# records a failed tool result and an API error.
scenario_claude_errors() {
	setup claude errors
	start_server claude-errors.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Show missing.txt' --session-id "$SID_ERR" "${claude_flags[@]}"
	run_cli_any run2 "${claude_env[@]}" "$CLAUDE" -p 'Try again' --resume "$SID_ERR" "${claude_flags[@]}"
	stop_server
	local f="$(claude_project)/$SID_ERR.jsonl"
	require "$f" 'select(.type=="user") | .message.content | arrays | .[] | select(.type=="tool_result" and .is_error==true)' "a failed tool_result"
	require "$f" 'select(.type=="assistant" and .isApiErrorMessage==true)' "an API error row"
	collect claude errors "$f"
}
SID_ERR=0b5e8a61-7c1d-4f3e-9a2b-000000000007

scenario_pi_errors() {
	setup pi errors
	start_server pi-errors.json
	pi_setup
	run_cli run1 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" 'Show missing.txt'
	local f
	f=$(pi_session)
	run_cli_any run2 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" 'Try again'
	stop_server
	require "$f" 'select(.type=="message" and .message.role=="toolResult" and .message.isError==true)' "a failed toolResult"
	require "$f" 'select(.type=="message" and .message.role=="assistant" and .message.stopReason=="error")' "an assistant error entry"
	collect pi errors "$f"
}

scenario_codex_errors() {
	setup codex errors
	start_server codex-errors.json
	codex_setup
	# shellcheck disable=SC2046
	run_cli run1 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" 'Show missing.txt'
	local f
	f=$(codex_session)
	# shellcheck disable=SC2046
	run_cli_any run2 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" resume "$(codex_thread "$f")" 'Try again'
	stop_server
	require "$f" 'select(.type=="event_msg" and .payload.type=="task_complete" and .payload.error != null)' "a task_complete with an error"
	collect codex errors "$f"
}

# fork-compacted (all harnesses): a session that went through a compaction,
# then forked — what a fork copies or references when the parent has a
# compaction boundary.
SID_FORKC=0b5e8a61-7c1d-4f3e-9a2b-000000000008
scenario_claude_fork-compacted() {
	setup claude fork-compacted
	start_server claude-fork-compacted.json
	claude_setup
	run_cli run1 "${claude_env[@]}" "$CLAUDE" -p 'Read notes.txt and remember what it says' \
		--session-id "$SID_FORKC" "${claude_flags[@]}"
	run_cli run2 "${claude_env[@]}" "$CLAUDE" -p '/compact keep the shopping list in mind' \
		--resume "$SID_FORKC" "${claude_flags[@]}"
	run_cli run3 "${claude_env[@]}" "$CLAUDE" -p 'What did the note say?' \
		--resume "$SID_FORKC" --fork-session "${claude_flags[@]}"
	stop_server
	local files child
	files=$(find "$(claude_project)" -maxdepth 1 -name '*.jsonl' | sort)
	[ "$(echo "$files" | wc -l)" -eq 2 ] || die "fork-compacted: want 2 session files, got: $files"
	for child in $files; do [ "$(basename "$child")" = "$SID_FORKC.jsonl" ] || break; done
	require "$child" 'select(.subtype=="compact_boundary")' "a copied compact_boundary in the fork"
	# shellcheck disable=SC2086
	collect claude fork-compacted $files
}

scenario_pi_fork-compacted() {
	setup pi fork-compacted
	start_server pi-fork-compacted.json
	pi_setup
	echo '{ "compaction": { "enabled": true, "reserveTokens": 2000, "keepRecentTokens": 30 } }' >"$W/home/.pi/agent/settings.json"
	show_file "$W/home/.pi/agent/settings.json"
	run_cli run1 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" 'Read notes.txt and remember it'
	local f
	f=$(pi_session)
	run_cli run2 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --session "$f" 'Make it oat milk'
	require "$f" 'select(.type=="compaction")' "a compaction entry"
	run_cli run3 "${pi_env[@]}" "$PI" -p "${pi_flags[@]}" --fork "$f" 'What should I buy?'
	stop_server
	local files child
	files=$(pi_sessions)
	[ "$(echo "$files" | wc -l)" -eq 2 ] || die "fork-compacted: want 2 session files, got: $files"
	for child in $files; do [ "$child" = "$f" ] || break; done
	require "$child" 'select(.type=="session" and .parentSession != null)' "a header with parentSession"
	# shellcheck disable=SC2086
	collect pi fork-compacted $files
}

scenario_codex_fork-compacted() {
	setup codex fork-compacted
	start_server codex-fork-compacted.json
	codex_setup
	# shellcheck disable=SC2046
	run_cli run1 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" -c model_auto_compact_token_limit=50000 'Read notes.txt'
	local f
	f=$(codex_session)
	require "$f" 'select(.type=="compacted")' "a compacted line"
	# shellcheck disable=SC2046
	run_cli run2 $(codex_env) "$CODEX" exec --skip-git-repo-check -C "$W/work" fork "$(codex_thread "$f")" 'What did the note say?'
	stop_server
	local files child
	files=$(codex_sessions)
	[ "$(echo "$files" | wc -l)" -eq 2 ] || die "fork-compacted: want 2 rollouts, got: $files"
	for child in $files; do [ "$child" = "$f" ] || break; done
	require "$child" 'select(.type=="session_meta" and .payload.forked_from_id != null)' "a session_meta with forked_from_id"
	# shellcheck disable=SC2086
	collect codex fork-compacted $files
}

# ---------------------------------------------------------------------------
# OpenCode. Sessions live in one SQLite database,
# $XDG_DATA_HOME/opencode/opencode.db (tables session, message, part), in
# WAL mode. The provider is @ai-sdk/openai-compatible (bundled in the
# binary) from OPENCODE_CONFIG_CONTENT. The prompt goes in on stdin: `run`
# quotes a positional argument that holds spaces, quotes and all.

opencode_env=()
opencode_setup() { # CONTEXT_LIMIT
	local cfg
	cfg=$(printf '{"model":"fake/fake-model","autoupdate":false,"share":"disabled","provider":{"fake":{"npm":"@ai-sdk/openai-compatible","name":"Fake loopback","options":{"baseURL":"%s/v1","apiKey":"sk-fake"},"models":{"fake-model":{"name":"Fake Model","limit":{"context":%d,"output":4096}}}}}}' "$URL" "${1:-32000}")
	opencode_env=("XDG_DATA_HOME=$W/home/.local/share" "XDG_CONFIG_HOME=$W/home/.config"
		"XDG_STATE_HOME=$W/home/.local/state" "XDG_CACHE_HOME=$W/home/.cache"
		"OPENCODE_CONFIG_CONTENT=$cfg" OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1)
}
opencode_db() { echo "$W/home/.local/share/opencode/opencode.db"; }

# opencode_run LOGNAME PROMPT [ARGS...]: `opencode run --format json ARGS`
# in $W/work with PROMPT on stdin, like run_cli otherwise.
opencode_run() {
	local name=$1 prompt=$2
	shift 2
	show "${opencode_env[@]}" "$OPENCODE" run --format json "$@"
	echo "# stdin: $prompt" >>"$cmdlog"
	local rc=0
	(cd "$W/work" && isolated "${opencode_env[@]}" "$OPENCODE" run --format json "$@" <<<"$prompt" >"$W/logs/$name.out" 2>"$W/logs/$name.err") || rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 20 "$W/logs/$name.err" >&2
		die "command failed with exit $rc (logs in $W/logs/$name.*)"
	fi
}

# opencode_require SQL WHAT: fail unless the query over the workspace's
# database returns a row.
opencode_require() {
	local n
	n=$(sqlite3 -readonly "$(opencode_db)" "$1" | wc -l)
	[ "$n" -gt 0 ] || die "opencode.db: expected $2, found none"
	echo "  ok: $2 in opencode.db" >&2
}

# opencode_collect SCENARIO: the database as a reader finds it once OpenCode
# is done, made self-contained: a copy of it with its -wal, checkpointed
# into the main file (sqlite3 removes the -wal and -shm when it closes) and
# vacuumed. It stays in WAL mode, as OpenCode left it.
opencode_collect() {
	local db snap="$W/collect/opencode.db"
	db=$(opencode_db)
	rm -rf "$W/collect"
	mkdir -p "$W/collect"
	cp "$db" "$snap"
	[ ! -f "$db-wal" ] || cp "$db-wal" "$snap-wal"
	echo "+ sqlite3 opencode.db 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;'" >&2
	sqlite3 "$snap" 'PRAGMA wal_checkpoint(TRUNCATE); VACUUM;' >/dev/null
	[ ! -e "$snap-wal" ] && [ ! -e "$snap-shm" ] || die "the checkpointed copy still has a -wal or -shm beside it"
	[ "$(sqlite3 -readonly "$snap" 'PRAGMA journal_mode')" = wal ] || die "the checkpointed copy is no longer in WAL mode"
	collect opencode "$1" "$snap"
}

scenario_opencode_tools() {
	setup opencode tools
	start_server opencode-tools.json
	opencode_setup
	opencode_run run1 'Read notes.txt, print a greeting and list the directory'
	stop_server
	opencode_require "select 1 from part where json_extract(data,'\$.type')='tool' and json_extract(data,'\$.state.status')='completed'" "a completed tool part"
	opencode_require "select 1 from part where json_extract(data,'\$.type')='reasoning'" "a reasoning part"
	opencode_collect tools
}

# subagent: the main agent calls the task tool; the subagent runs in a
# child session (session.parent_id) that reads notes.txt. The parent waits,
# so the scripted turns are consumed in order: parent, child, child, parent.
scenario_opencode_subagent() {
	setup opencode subagent
	start_server opencode-subagent.json
	opencode_setup
	opencode_run run1 'Use a subagent to read notes.txt'
	stop_server
	opencode_require "select 1 from session where parent_id is not null" "a child session"
	opencode_collect subagent
}

# compact: a 32000-token context limit and a reply reporting 31000 input
# tokens, so OpenCode compacts automatically after the turn (a user message
# with a compaction part, then a summary message answered by the script's
# "summarize" rule) and goes on with a synthetic "Continue" prompt.
scenario_opencode_compact() {
	setup opencode compact
	start_server opencode-compact.json
	opencode_setup 32000
	opencode_run run1 'Read notes.txt and remember it'
	stop_server
	opencode_require "select 1 from part where json_extract(data,'\$.type')='compaction'" "a compaction part"
	opencode_require "select 1 from message where json_extract(data,'\$.summary')=1" "a summary message"
	opencode_collect compact
}

# ---------------------------------------------------------------------------
# Gemini CLI. Chats live in $GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/
# session-<time>-<id8>.jsonl, with the project's directory in
# tmp/<project>/.project_root. API-key auth from settings.json takes the base
# URL from GOOGLE_GEMINI_BASE_URL (plain http on loopback); -m names the
# model, so the CLI's model router asks nothing; --yolo runs the shell tool
# unasked. The files are collected with their tmp/ layout, so a scenario
# folder is a session root as ~/.gemini/tmp is.

gemini_env=()
gemini_setup() { # [EXTRA_SETTINGS_JSON]
	local extra=${1:-}
	[ -n "$extra" ] || extra='{}'
	mkdir -p "$W/home/.gemini"
	jq -n --argjson extra "$extra" '{security: {auth: {selectedType: "gemini-api-key"}}} * $extra' >"$W/home/.gemini/settings.json"
	show_file "$W/home/.gemini/settings.json"
	gemini_env=(GEMINI_API_KEY=fake-gemini-key "GOOGLE_GEMINI_BASE_URL=$URL" GEMINI_CLI_TRUST_WORKSPACE=true "GEMINI_CLI_HOME=$W/home")
}
gemini_flags=(-m gemini-2.5-flash --yolo --output-format json)
gemini_tmp() { echo "$W/home/.gemini/tmp"; }
gemini_sessions() { find "$(gemini_tmp)" -path '*/chats/*' -name '*.jsonl' | sort; }

# gemini_session: the one chat file of the workspace (fails if not exactly one).
gemini_session() {
	local files
	files=$(gemini_sessions)
	[ -n "$files" ] && [ "$(echo "$files" | wc -l)" -eq 1 ] || die "want exactly one gemini chat file, got: ${files:-none}"
	echo "$files"
}

# gemini_collect SCENARIO FILE...: the chat files and their project's
# .project_root, under their path below tmp/.
gemini_collect() {
	local s=$1 f roots=()
	shift
	for f in "$@"; do roots+=("$(dirname "$(dirname "$f")")/.project_root"); done
	# shellcheck disable=SC2046
	collect gemini "$s" -C "$(gemini_tmp)" "$@" $(printf '%s\n' "${roots[@]}" | sort -u)
}

scenario_gemini_tools() {
	setup gemini tools
	start_server gemini-tools.json
	gemini_setup
	run_cli run1 "${gemini_env[@]}" "$GEMINI" -p 'Read notes.txt, print a greeting and list the directory' "${gemini_flags[@]}"
	stop_server
	local f
	f=$(gemini_session)
	require "$f" 'select(.type=="gemini") | .toolCalls[]? | select(.name=="run_shell_command" and .status=="success")' "a run_shell_command call with its result"
	require "$f" 'select(.type=="gemini") | .thoughts[]?' "a recorded thought"
	gemini_collect tools "$f"
}

# resume: --resume latest appends to the same chat file.
scenario_gemini_resume() {
	setup gemini resume
	start_server gemini-resume.json
	gemini_setup
	run_cli run1 "${gemini_env[@]}" "$GEMINI" -p 'Hi there' "${gemini_flags[@]}"
	local f
	f=$(gemini_session)
	run_cli run2 "${gemini_env[@]}" "$GEMINI" -p 'Print the word resumed' --resume latest "${gemini_flags[@]}"
	stop_server
	[ "$(gemini_session)" = "$f" ] || die "resume: the chat file changed"
	gemini_collect resume "$f"
}

# compact: automatic compression. The second run's tool-call reply reports
# 600,000 prompt tokens, past half of gemini-2.5-flash's 1,048,576-token
# limit (the default model.compressionThreshold, 0.5), so before the next
# request the CLI compresses: the summarizer is answered by the script's
# "summarize" rule and the history becomes the state snapshot
# ($set.messages). A third run follows the compression. (/compress does not
# compress the recorded chat in headless mode.)
scenario_gemini_compact() {
	setup gemini compact
	start_server gemini-compact.json
	gemini_setup
	run_cli run1 "${gemini_env[@]}" "$GEMINI" -p 'Read notes.txt and remember it' "${gemini_flags[@]}"
	local f
	f=$(gemini_session)
	run_cli run2 "${gemini_env[@]}" "$GEMINI" -p 'Make it oat milk' --resume latest "${gemini_flags[@]}"
	run_cli run3 "${gemini_env[@]}" "$GEMINI" -p 'What should I buy?' --resume latest "${gemini_flags[@]}"
	stop_server
	[ "$(gemini_session)" = "$f" ] || die "compact: the chat file changed"
	require "$f" '.["$set"].messages[]? | select(.content | tostring | test("state_snapshot"))' "a history replaced by a state snapshot"
	gemini_collect compact "$f"
}

# errors: a read_file of a missing file (an error result), then a resumed
# prompt the model API answers with HTTP 400.
scenario_gemini_errors() {
	setup gemini errors
	start_server gemini-errors.json
	gemini_setup
	run_cli run1 "${gemini_env[@]}" "$GEMINI" -p 'Show missing.txt' "${gemini_flags[@]}"
	local f
	f=$(gemini_session)
	run_cli_any run2 "${gemini_env[@]}" "$GEMINI" -p 'Try again' --resume latest "${gemini_flags[@]}"
	stop_server
	require "$f" 'select(.type=="gemini") | .toolCalls[]? | select(.status=="error")' "a failed tool call"
	gemini_collect errors "$f"
}

# ---------------------------------------------------------------------------
# GitHub Copilot CLI. Sessions live in $COPILOT_HOME/session-state/<id>/
# (events.jsonl, workspace.yaml); its bring-your-own-key provider takes an
# OpenAI-compatible chat-completions URL (COPILOT_PROVIDER_BASE_URL), and
# COPILOT_OFFLINE=true turns off GitHub sign-in, telemetry and updates. No
# API key: a local provider needs none. --session-id fixes the folder name;
# the recordings keep the session folder's events.jsonl and workspace.yaml
# (the rest of the folder is the CLI's scratch space).

copilot_env=()
copilot_setup() { # [VAR=value...]
	copilot_env=("COPILOT_HOME=$W/home/.copilot" "COPILOT_PROVIDER_BASE_URL=$URL/v1" COPILOT_MODEL=fake-model
		COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false "$@")
}
copilot_flags=(--allow-all --no-auto-update)
copilot_dir() { echo "$W/home/.copilot/session-state/$1"; }

# copilot_collect SCENARIO ID: the session's events.jsonl and workspace.yaml,
# under <id>/ as the CLI keeps them.
copilot_collect() {
	local d
	d=$(copilot_dir "$2")
	collect copilot "$1" -C "$W/home/.copilot/session-state" "$d/events.jsonl" "$d/workspace.yaml"
}

CSID_TOOLS=0c0c0c0c-7c1d-4f3e-9a2b-000000000001
CSID_RESUME=0c0c0c0c-7c1d-4f3e-9a2b-000000000002
CSID_COMPACT=0c0c0c0c-7c1d-4f3e-9a2b-000000000003
CSID_AUTO=0c0c0c0c-7c1d-4f3e-9a2b-000000000004
CSID_ERRORS=0c0c0c0c-7c1d-4f3e-9a2b-000000000005

scenario_copilot_tools() {
	setup copilot tools
	start_server copilot-tools.json
	copilot_setup
	run_cli run1 "${copilot_env[@]}" "$COPILOT" -p 'Read notes.txt, print a greeting and list the directory' \
		--session-id "$CSID_TOOLS" "${copilot_flags[@]}"
	stop_server
	local f
	f=$(copilot_dir "$CSID_TOOLS")/events.jsonl
	require "$f" 'select(.type=="tool.execution_complete" and .data.success==true and (.data.result.content|test("hello from notesoup")))' "a bash call with its result"
	require "$f" 'select(.type=="assistant.message" and .data.reasoningText!=null)' "recorded reasoning"
	copilot_collect tools "$CSID_TOOLS"
}

# resume: a second -p run with --resume appends to the same events.jsonl.
scenario_copilot_resume() {
	setup copilot resume
	start_server copilot-resume.json
	copilot_setup
	run_cli run1 "${copilot_env[@]}" "$COPILOT" -p 'Hi there' --session-id "$CSID_RESUME" "${copilot_flags[@]}"
	run_cli run2 "${copilot_env[@]}" "$COPILOT" -p 'Print the word resumed' --resume "$CSID_RESUME" "${copilot_flags[@]}"
	stop_server
	require "$(copilot_dir "$CSID_RESUME")/events.jsonl" 'select(.type=="session.resume")' "a session.resume event"
	copilot_collect resume "$CSID_RESUME"
}

# compact: a turn with a view call, a manual /compact on resume (the
# summarizer request is answered by the script's "summarize" rule), then a
# prompt after the compaction.
scenario_copilot_compact() {
	setup copilot compact
	start_server copilot-compact.json
	copilot_setup
	run_cli run1 "${copilot_env[@]}" "$COPILOT" -p 'Read notes.txt and remember what it says' \
		--session-id "$CSID_COMPACT" "${copilot_flags[@]}"
	run_cli run2 "${copilot_env[@]}" "$COPILOT" -p '/compact' --resume "$CSID_COMPACT" "${copilot_flags[@]}"
	run_cli run3 "${copilot_env[@]}" "$COPILOT" -p 'What did the note say?' --resume "$CSID_COMPACT" "${copilot_flags[@]}"
	stop_server
	require "$(copilot_dir "$CSID_COMPACT")/events.jsonl" 'select(.type=="session.compaction_complete" and .data.success==true and .data.trigger=="manual")' "a manual compaction"
	copilot_collect compact "$CSID_COMPACT"
}

# autocompact: a 16,000-token prompt limit (COPILOT_PROVIDER_MAX_PROMPT_TOKENS);
# the system prompt and tools take ~10k, so the 3000 lines of seq output
# pass it: the CLI truncates, then compacts in the background (trigger
# "threshold"). A -p run that ends before the background compaction does
# cancels it, so the script's next call sleeps 3 s (the summary comes back
# from the loopback server in milliseconds) and the compaction is applied.
scenario_copilot_autocompact() {
	setup copilot autocompact
	start_server copilot-autocompact.json
	copilot_setup COPILOT_PROVIDER_MAX_PROMPT_TOKENS=16000
	run_cli run1 "${copilot_env[@]}" "$COPILOT" -p 'Print the numbers 1 to 3000' --session-id "$CSID_AUTO" "${copilot_flags[@]}"
	run_cli run2 "${copilot_env[@]}" "$COPILOT" -p 'What was the last number?' --resume "$CSID_AUTO" "${copilot_flags[@]}"
	stop_server
	require "$(copilot_dir "$CSID_AUTO")/events.jsonl" 'select(.type=="session.compaction_complete" and .data.success==true and .data.trigger=="threshold")' "an automatic compaction"
	copilot_collect autocompact "$CSID_AUTO"
}

# errors: a view of a missing file (a failed tool call), then a resumed
# prompt the model API answers with HTTP 400.
scenario_copilot_errors() {
	setup copilot errors
	start_server copilot-errors.json
	copilot_setup
	run_cli run1 "${copilot_env[@]}" "$COPILOT" -p 'Show missing.txt' --session-id "$CSID_ERRORS" "${copilot_flags[@]}"
	run_cli_any run2 "${copilot_env[@]}" "$COPILOT" -p 'Try again' --resume "$CSID_ERRORS" "${copilot_flags[@]}"
	stop_server
	require "$(copilot_dir "$CSID_ERRORS")/events.jsonl" 'select(.type=="tool.execution_complete" and .data.success==false)' "a failed tool call"
	copilot_collect errors "$CSID_ERRORS"
}

# ---------------------------------------------------------------------------
# README per harness: generated from the command logs of the scenarios
# present in OUTDIR/<harness>/.

write_readme() {
	local h=$1 dir="$out/$1"
	[ -d "$dir" ] || return 0
	{
		echo "# Recorded $h sessions"
		echo
		echo "Real session files written by the pinned CLI ($(pinned "$h")) running headless"
		echo "against the scripted model server (testkit/cmd/modelserver) on 127.0.0.1, in an"
		echo "isolated HOME. Generated by \`e2e/record.sh\`; do not edit by hand — re-record."
		echo "\`\$W\` is the scenario workspace (\`$RECORD_ROOT/$h-<scenario>\`), \`\$REPO\` the repo root,"
		echo "\`\$BIN\` holds \`go build -o \$BIN/ ./testkit/cmd/modelserver ./testkit/cmd/echomcp\`."
		echo "The model's replies are the scenario scripts in \`e2e/scenarios/$h-<scenario>.json\`."
		echo "Every CLI command below ran in \`\$W/work\` (a git repo holding \`notes.txt\`), stdin"
		echo "\`/dev/null\`, under \`env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=\$W/home TMPDIR=\$W/tmp"
		echo "TZ=UTC LANG=C.UTF-8 SHELL=/bin/bash TERM=dumb NO_COLOR=1\` plus the variables shown."
		echo "\`\$URL\` is the model server's base URL (a free port on 127.0.0.1). A \`# network:\` line"
		echo "marks scenarios recorded inside a loopback-only network namespace (\`unshare -n\`)."
		local s
		for s in "$dir"/*/; do
			s=${s%/}
			[ -f "$s/commands.txt" ] || continue
			echo
			echo "## $(basename "$s")"
			echo
			echo "Files:"
			local f
			for f in $(cd "$s" && find . -type f ! -name commands.txt | sed 's#^\./##' | sort); do
				echo "- \`$f\`"
			done
			echo
			echo "Commands (in order):"
			echo
			echo '```sh'
			cat "$s/commands.txt"
			echo '```'
		done
	} >"$dir/README.md"
}

pinned() {
	case $1 in
	claude) echo "@anthropic-ai/claude-code 2.1.332" ;;
	pi) echo "@mariozechner/pi-coding-agent 0.73.1" ;;
	codex) echo "@openai/codex 0.171.0" ;;
	opencode) echo "opencode-ai 1.18.33" ;;
	gemini) echo "@google/gemini-cli 0.61.0" ;;
	copilot) echo "@github/copilot 1.0.102" ;;
	esac
}

if [ -n "$readme_only" ]; then
	for h in claude pi codex opencode gemini copilot; do write_readme "$h"; done
	echo "record.sh: regenerated the READMEs in $out" >&2
	exit 0
fi
for s in "${selected[@]}"; do
	echo "== $s" >&2
	"scenario_${s//\//_}"
done
# Only the READMEs of the harnesses recorded now: another harness's folder
# may hold files its own tests left beside its recordings.
for h in $(printf '%s\n' "${selected[@]}" | cut -d/ -f1 | sort -u); do write_readme "$h"; done
echo "record.sh: recorded ${#selected[@]} scenario(s) into $out" >&2
