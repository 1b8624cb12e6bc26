#!/usr/bin/env bash
# compare.sh BASE: every bench/run.sh figure for commit BASE and for HEAD,
# side by side in the same hyperfine runs (same files, same load), plus the
# in-process benchmarks through benchstat. Needs the corpus bench/run.sh
# generates ($BENCH_DIR/corpus-$BENCH_SIZE-$BENCH_SEED).
set -euo pipefail
base=${1:?usage: compare.sh BASE-COMMIT}
root=$(cd "$(dirname "$0")/.." && pwd)
BENCH_REAL_HOME=$HOME
BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/notesoup-bench}
BENCH_SIZE=${BENCH_SIZE:-1G}
BENCH_SEED=${BENCH_SEED:-1}
RUNS=${BENCH_RUNS:-5}
GO=${GO:-go}
BENCHSTAT=${BENCHSTAT:-golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da}
out=${BENCH_OUT:-$BENCH_DIR/compare}
# BENCH_STEPS selects steps, as in bench/run.sh.
BENCH_STEPS=${BENCH_STEPS:-decode search sessions memory helper gobench}
step() { [[ " $BENCH_STEPS " == *" $1 "* ]]; }
log() { echo "compare: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
corpus=$BENCH_DIR/corpus-$BENCH_SIZE-$BENCH_SEED
[ -f "$corpus/corpus.json" ] || { echo "compare.sh: no corpus at $corpus; run bench/run.sh once first (it generates it)" >&2; exit 2; }
mkdir -p "$out"

# Two trees: BASE and HEAD as committed (a dirty working tree is not measured).
trees=$BENCH_DIR/compare-trees
rm -rf "$trees" && mkdir -p "$trees"
git -C "$root" worktree prune
for v in base head; do
	rev=$base; [ $v = head ] && rev=HEAD
	git -C "$root" worktree add --detach "$trees/$v" "$rev" >/dev/null 2>&1
	log "building $v ($(git -C "$trees/$v" rev-parse --short HEAD))"
	(cd "$trees/$v" && CGO_ENABLED=0 $GO build -tags light -o "$trees/$v.bin/notesoup" ./cmd/notesoup &&
		CGO_ENABLED=0 $GO build -o "$trees/$v.bin/notesoup-host" ./cmd/notesoup &&
		$GO build -o "$trees/$v.bin/decodeall" ./bench/cmd/decodeall)
done
trap 'git -C "$root" worktree remove --force "$trees/base"; git -C "$root" worktree remove --force "$trees/head"' EXIT
B=$trees/base.bin H=$trees/head.bin

home=$corpus/home
CL=$home/.claude/projects PI=$home/.pi/agent/sessions CX=$home/.codex/sessions
needle=$(jq -r .needle "$corpus/corpus.json")
roots="--claude-root $CL --pi-root $PI --codex-root $CX"
hf() { local name=$1; shift; log "$name (load $(load))"; echo "$(load)" >"$out/$name.load"
	hyperfine --style basic --export-json "$out/$name.json" "$@" >"$out/$name.txt" 2>&1 || { cat "$out/$name.txt" >&2; return 1; }; }

step decode && for h in claude pi codex; do
	case $h in claude) r=$CL ;; pi) r=$PI ;; codex) r=$CX ;; esac
	hf "decode-$h" --runs 3 --warmup 1 \
		-n "base decode $h" "$B/decodeall -harness $h -root $r >/dev/null" \
		-n "head decode $h" "$H/decodeall -harness $h -root $r >/dev/null"
done

cb=$BENCH_DIR/compare-cache-base ch=$BENCH_DIR/compare-cache-head
step search && hf search --runs "$RUNS" --warmup 1 -i \
	--prepare "rm -rf $cb" --prepare "rm -rf $ch" --prepare true --prepare true \
	-n "base search cold" "$B/notesoup search '$needle' $roots --cache-dir $cb --limit 0 --json" \
	-n "head search cold" "$H/notesoup search '$needle' $roots --cache-dir $ch --limit 0 --json" \
	-n "base search warm" "$B/notesoup search '$needle' $roots --cache-dir $cb --limit 0 --json" \
	-n "head search warm" "$H/notesoup search '$needle' $roots --cache-dir $ch --limit 0 --json"

xb=$BENCH_DIR/compare-xdg-base xh=$BENCH_DIR/compare-xdg-head
step sessions && hf sessions --runs "$RUNS" --warmup 1 \
	--prepare "rm -rf $xb" --prepare "rm -rf $xh" --prepare true --prepare true \
	-n "base sessions cold" "XDG_CACHE_HOME=$xb $B/notesoup history sessions $roots --limit 0 --json >/dev/null" \
	-n "head sessions cold" "XDG_CACHE_HOME=$xh $H/notesoup history sessions $roots --limit 0 --json >/dev/null" \
	-n "base sessions warm" "XDG_CACHE_HOME=$xb $B/notesoup history sessions $roots --limit 0 --json >/dev/null" \
	-n "head sessions warm" "XDG_CACHE_HOME=$xh $H/notesoup history sessions $roots --limit 0 --json >/dev/null"

memroot=$BENCH_DIR/mem-200M/home/.pi/agent/sessions
if step memory && [ -d "$memroot" ]; then
	for v in base head; do
		bin=$B; [ $v = head ] && bin=$H
		/usr/bin/time -f '%M' -o "$out/mem-$v.rss" "$bin/decodeall" -harness pi -root "$memroot" >/dev/null
	done
fi

if step helper; then
hdir=$BENCH_DIR/compare-helper
rm -rf "$hdir" && mkdir -p "$hdir/proj"
export HOME=$hdir NOTESOUP_HOME=$hdir/.notesoup CLAUDE_CONFIG_DIR=$root/samples/claude PI_CODING_AGENT_DIR=$root/samples/pi CODEX_HOME=$root/samples/codex
printf '%s\n' '{"v":1,"op":"notes.write","caller":{"cwd":"'"$hdir/proj"'"},"args":{"name":"plan.md","content":"# Plan\nship\n"}}' >"$hdir/write.json"
printf '%s\n' '{"v":1,"op":"notes.read","caller":{"cwd":"'"$hdir/proj"'"},"args":{"name":"plan.md"}}' >"$hdir/notes-read.json"
printf '%s\n' '{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"model":"m","model_window":200000}}' >"$hdir/limits.json"
printf '%s\n' '{"v":1,"op":"history.list","args":{"session":"claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001","limit":20}}' >"$hdir/history-list.json"
"$H/notesoup" helper <"$hdir/write.json" >/dev/null
cmds=()
for op in notes-read limits history-list; do
	cmds+=(-n "base helper $op" "$B/notesoup helper <$hdir/$op.json" -n "head helper $op" "$H/notesoup helper <$hdir/$op.json")
done
hf helper --warmup 5 --runs "${BENCH_HELPER_RUNS:-40}" "${cmds[@]}"
export HOME=$BENCH_REAL_HOME
unset NOTESOUP_HOME CLAUDE_CONFIG_DIR PI_CODING_AGENT_DIR CODEX_HOME
fi

step gobench && log "go test -bench, base and head (load $(load))"
step gobench && for v in base head; do
	(cd "$trees/$v" && NOTESOUP_BENCH_CORPUS=$corpus NOTESOUP_BENCH_NEEDLE=$needle \
		$GO test -run '^$' -bench . -benchtime 1x -count "${BENCH_COUNT:-6}" ./bench) >"$out/gobench-$v.txt" 2>&1 || log "gobench $v failed (see $out/gobench-$v.txt)"
done
step gobench && { (cd "$root" && $GO run "$BENCHSTAT" "$out/gobench-base.txt" "$out/gobench-head.txt") >"$out/benchstat.txt" 2>&1 || true; }

# One table: mean wall and CPU (user+system) per command, head/base ratios.
python3 - "$out" <<'PY'
import json, glob, os, sys
out = sys.argv[1]
rows = []
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    res = {r["command"]: r for r in json.load(open(f))["results"]}
    load = open(f[:-5] + ".load").read().strip()
    for name, r in res.items():
        if not name.startswith("base "):
            continue
        h = res.get("head " + name[5:])
        if not h:
            continue
        cb, chd = r["user"] + r["system"], h["user"] + h["system"]
        rows.append((name[5:], r["mean"] * 1e3, h["mean"] * 1e3, cb * 1e3, chd * 1e3, load))
print("| figure | base wall ms | head wall ms | head/base | base CPU ms | head CPU ms | head/base | load |")
print("|---|---|---|---|---|---|---|---|")
for n, bw, hw, bc, hc, l in rows:
    print(f"| {n} | {bw:.1f} | {hw:.1f} | {hw/bw:.2f} | {bc:.1f} | {hc:.1f} | {hc/bc:.2f} | {l} |")
for v in ("base", "head"):
    p = os.path.join(out, f"mem-{v}.rss")
    if os.path.exists(p):
        print(f"\npeak RSS decoding the 200 MB Pi transcript, {v}: {int(open(p).read().split()[-1]) // 1024} MiB")
PY
