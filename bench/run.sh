#!/usr/bin/env bash
# bench/run.sh: notesoup's benchmark suite, each figure beside its baseline on
# the same files, in one run. Writes $BENCH_DIR/results.json and the
# new-query tables in Markdown ($BENCH_DIR/results.md, bench/table.py) for
# BENCHMARKS.md.
#
#   BENCH_SIZE=1G BENCH_DIR=/tmp/notesoup-bench bench/run.sh
#
# The generated corpus lives in $BENCH_DIR (never in the repository) and is
# reused while its size and seed are unchanged. BENCH_CORPUS=replica uses
# the second corpus instead: copies of the real transcripts in samples/ with
# new ids (bench/cmd/replica), in $BENCH_DIR/replica-$BENCH_SIZE. On a shared machine every
# figure carries the load average measured next to it, and CPU time where
# wall time only measures the neighbours.
set -euo pipefail

BENCH_DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/notesoup-bench}
BENCH_SIZE=${BENCH_SIZE:-1G}
BENCH_SEED=${BENCH_SEED:-1}
BENCH_CORPUS=${BENCH_CORPUS:-generated} # generated (testkit/cmd/corpus) or replica (bench/cmd/replica)
BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_COUNT=${BENCH_COUNT:-6}       # go test -count: benchstat needs 6 for an interval
MEM_SIZE=${MEM_SIZE:-200M}          # the single transcript of the memory figure
# benchstat pinned: the x/perf pseudo-version it ships in.
BENCHSTAT=${BENCHSTAT:-golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da}
GO=${GO:-go}
# BENCH_STEPS selects steps (decode search newquery sessions memory helper gobench); BENCH_OUT
# keeps a step's outputs apart (e.g. a second decode run after a change).
BENCH_STEPS=${BENCH_STEPS:-decode search newquery sessions memory helper gobench}
# DEJA=/path/to/deja adds deja-vu (github.com/vshulcz/deja-vu, built from its
# source by whoever runs this; never part of the project) to the newquery step.
DEJA=${DEJA:-}
step() { [[ " $BENCH_STEPS " == *" $1 "* ]]; }

root=$(cd "$(dirname "$0")/.." && pwd)
BENCH_REAL_HOME=$HOME
mkdir -p "$BENCH_DIR/bin"
log() { echo "bench: $*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

need() {
	local missing=()
	for t in hyperfine rg jq; do command -v "$t" >/dev/null || missing+=("$t"); done
	[ ${#missing[@]} -eq 0 ] && return
	pkgs=()
	for t in "${missing[@]}"; do case $t in rg) pkgs+=(ripgrep) ;; *) pkgs+=("$t") ;; esac; done
	log "installing ${pkgs[*]} (Debian packages)"
	if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${pkgs[@]}"; else sudo apt-get update -qq && sudo apt-get install -y -qq "${pkgs[@]}"; fi
}
need

log "building"
(cd "$root" && CGO_ENABLED=0 $GO build -tags light -o "$BENCH_DIR/bin/notesoup" ./cmd/notesoup &&
	CGO_ENABLED=0 $GO build -o "$BENCH_DIR/bin/notesoup-host" ./cmd/notesoup &&
	$GO build -o "$BENCH_DIR/bin/corpus" ./testkit/cmd/corpus &&
	$GO build -o "$BENCH_DIR/bin/replica" ./bench/cmd/replica &&
	$GO build -o "$BENCH_DIR/bin/decodeall" ./bench/cmd/decodeall)
NS=$BENCH_DIR/bin/notesoup
NSFULL=$BENCH_DIR/bin/notesoup-host

case $BENCH_CORPUS in
generated)
	corpus=$BENCH_DIR/corpus-$BENCH_SIZE-$BENCH_SEED
	if [ ! -f "$corpus/corpus.json" ]; then
		log "generating a $BENCH_SIZE corpus (seed $BENCH_SEED) in $corpus"
		rm -rf "$corpus"
		"$BENCH_DIR/bin/corpus" -dir "$corpus" -size "$BENCH_SIZE" -seed "$BENCH_SEED" >"$corpus.json.tmp"
		mv "$corpus.json.tmp" "$corpus/corpus.json"
	fi
	;;
replica)
	# Reused while its size and seed are unchanged (the seed is in corpus.json).
	corpus=$BENCH_DIR/replica-$BENCH_SIZE
	if [ ! -f "$corpus/corpus.json" ] || [ "$(jq -r .seed "$corpus/corpus.json")" != "$BENCH_SEED" ]; then
		log "replicating samples/ to $BENCH_SIZE (seed $BENCH_SEED) in $corpus"
		rm -rf "$corpus"
		"$BENCH_DIR/bin/replica" -samples "$root/samples" -dir "$corpus" -size "$BENCH_SIZE" -seed "$BENCH_SEED" >"$corpus.json.tmp"
		mv "$corpus.json.tmp" "$corpus/corpus.json"
	fi
	;;
*)
	log "BENCH_CORPUS=$BENCH_CORPUS: use generated or replica"
	exit 2
	;;
esac
home=$corpus/home
CL=$home/.claude/projects PI=$home/.pi/agent/sessions CX=$home/.codex/sessions
needle=$(jq -r .needle "$corpus/corpus.json")
roots=(--claude-root "$CL" --pi-root "$PI" --codex-root "$CX")

memdir=$BENCH_DIR/mem-$MEM_SIZE
if [ ! -f "$memdir/corpus.json" ]; then
	log "generating one $MEM_SIZE Pi transcript"
	rm -rf "$memdir"
	"$BENCH_DIR/bin/corpus" -dir "$memdir" -size "$MEM_SIZE" -sessions 1 -harnesses pi -seed 2 >"$memdir.json.tmp"
	mv "$memdir.json.tmp" "$memdir/corpus.json"
fi

out=${BENCH_OUT:-$BENCH_DIR/out}
mkdir -p "$out"
hf() { # name, hyperfine args...
	local name=$1
	shift
	log "$name (load $(load))"
	echo "$(load)" >"$out/$name.load"
	hyperfine --style basic --export-json "$out/$name.json" "$@" >"$out/$name.txt" 2>&1 || { cat "$out/$name.txt" >&2; return 1; }
}

# 1. Decode throughput per harness beside cat and jq over the same files.
step decode && for h in claude pi codex; do
	case $h in claude) r=$CL ;; pi) r=$PI ;; codex) r=$CX ;; esac
	find "$r" -name '*.jsonl' -print0 >"$out/files-$h"
	jq=(-n "jq -c . $h" "xargs -0 jq -c . <$out/files-$h >/dev/null")
	[ "${BENCH_JQ:-1}" = 0 ] && jq=() # jq is the slowest baseline: skip it on a re-run
	hf "decode-$h" --runs 3 --warmup 1 \
		-n "cat $h" "xargs -0 cat <$out/files-$h >/dev/null" \
		"${jq[@]}" \
		-n "notesoup decode $h" "$BENCH_DIR/bin/decodeall -harness $h -root $r >/dev/null"
	"$BENCH_DIR/bin/decodeall" -harness "$h" -root "$r" >"$out/decodeall-$h.json"
done

# 2. A literal query over the whole corpus: cold (empty answer cache, the
# first run after the files changed), warm (unchanged files), beside rg.
# hyperfine takes one --prepare per command, in order.
cache=$BENCH_DIR/search-cache
if step search; then
	export NOTESOUP_SEARCH_INDEX=0 # this step measures the raw engine; 2b the index
	hf search --runs "$BENCH_RUNS" --warmup 1 \
		--prepare true --prepare true --prepare "rm -rf $cache" --prepare true \
		-n "rg -F -c" "rg -F -c '$needle' $CL $PI $CX" \
		-n "rg -F -i -c" "rg -F -i -c '$needle' $CL $PI $CX" \
		-n "notesoup search cold" "$NS search '$needle' ${roots[*]} --cache-dir $cache --limit 0 --json" \
		-n "notesoup search warm" "$NS search '$needle' ${roots[*]} --cache-dir $cache --limit 0 --json"
	rm -rf "$cache"
	echo "$(load)" >"$out/search-cpu.load"
	/usr/bin/time -f '%U %S %e' -o "$out/search-cold.cpu" "$NS" search "$needle" "${roots[@]}" --cache-dir "$cache" --json --limit 0 >"$out/search-cold.json"
	/usr/bin/time -f '%U %S %e' -o "$out/search-warm.cpu" "$NS" search "$needle" "${roots[@]}" --cache-dir "$cache" --json >/dev/null
	/usr/bin/time -f '%U %S %e' -o "$out/rg.cpu" rg -F -c "$needle" "$CL" "$PI" "$CX" >/dev/null
	unset NOTESOUP_SEARCH_INDEX
fi

# 2b. Any NEW query over unchanged files, from the persistent index
# (search.Options.Index, NOTESOUP_SEARCH_INDEX=1), beside the raw engine
# (NOTESOUP_SEARCH_INDEX=0, its answer cache emptied before each run, so
# every run is its first time asking), rg -uu -F -i -c over the same raw
# files and, when DEJA is set, deja-vu over its own index of the same
# roots: a query found nowhere, a rare one, a common phrase, a non-ASCII
# one, each as the CLI runs it by default (human output, --limit 20: the
# index stops at the newest 20 complete sessions), and once with --json
# --limit 0 (every session verified, an exact total). The index is built
# once first (its size and build time beside deja-vu's); the answers it
# keeps per query are removed before each run, so every run is a new
# query, and "again" is the same query with its kept answer. Then the
# first query after one file grew (append), which decodes that file only.
idx=$BENCH_DIR/search-index
rawc=$BENCH_DIR/search-raw
export OUTDIR=$out
if step newquery; then
	rm -rf "$idx"
	echo "$(load)" >"$out/index-build.load"
	# The first search over an empty index (it indexes up to its build
	# budget, 128 MB, and answers the rest as the raw engine does), then
	# the whole build: searches until one decodes nothing.
	NOTESOUP_SEARCH_INDEX=1 /usr/bin/time -f '%U %S %e %M' -o "$out/index-first.cpu" "$NS" search "$needle" "${roots[@]}" --cache-dir "$idx" --json >/dev/null
	rm -rf "$idx"
	NOTESOUP_SEARCH_INDEX=1 /usr/bin/time -f '%U %S %e %M' -o "$out/index-build.cpu" sh -c \
		'q=$1; shift; n=1; until "$0" search "$q" "$@" --stats 2>&1 >/dev/null | grep -q " 0 decoded$"; do n=$((n+1)); done; echo $n >"$OUTDIR/index-build.searches"' \
		"$NS" "$needle" "${roots[@]}" --cache-dir "$idx"
	du -sb "$idx" | cut -f1 >"$out/index-build.bytes"
	du -sb "$CL" "$PI" "$CX" | awk '{s+=$1} END {printf "%.0f\n", s}' >"$out/corpus.bytes"
	# A corpus that names its own common and non-ASCII queries (the
	# replica's "common", "nonascii") has them as the defaults.
	qcommon=$(jq -r '.common // "go test ./..."' "$corpus/corpus.json")
	qnonascii=$(jq -r '.nonascii // "café"' "$corpus/corpus.json")
	queries=("$needle" "${BENCH_Q_NOWHERE:-zqxj nowhere 80417}" "${BENCH_Q_COMMON:-$qcommon}" "${BENCH_Q_NONASCII:-$qnonascii}")
	names=(rare nowhere common nonascii)
	dejaenv=()
	if [ -n "$DEJA" ]; then
		# DEJA_HOME keeps deja-vu's index between runs (its build takes
		# minutes per GB): an index there is reused, with the build figures
		# recorded beside it when it was made.
		dejahome=${DEJA_HOME:-$BENCH_DIR/deja-home-$(basename "$corpus")}
		dejaenv=(env HOME=$dejahome DEJA_INDEX_DIR=$dejahome/index DEJA_CLAUDE_ROOT=$CL DEJA_PI_ROOT=$PI DEJA_CODEX_ROOT=$home/.codex) # deja-vu adds sessions/ to its Codex root
		if [ ! -f "$dejahome/build.cpu" ]; then
			rm -rf "$dejahome" && mkdir -p "$dejahome"
			echo "$(load)" >"$dejahome/build.load"
			/usr/bin/time -f '%U %S %e %M' -o "$dejahome/build.cpu.tmp" "${dejaenv[@]}" "$DEJA" index --rebuild >/dev/null 2>&1 || log "deja index failed"
			du -sb "$dejahome" | cut -f1 >"$dejahome/build.bytes" # its index and whatever else it keeps there
			mv "$dejahome/build.cpu.tmp" "$dejahome/build.cpu"
		fi
		cp "$dejahome/build.load" "$out/deja-build.load"
		cp "$dejahome/build.cpu" "$out/deja-build.cpu"
		cp "$dejahome/build.bytes" "$out/deja-build.bytes"
	fi
	for i in "${!queries[@]}"; do
		q=${queries[$i]} n=${names[$i]}
		# hyperfine takes one --prepare per command, in order.
		cmds=(-n "rg -uu -F -i -c $n" "rg -uu -F -i -c '$q' $CL $PI $CX >/dev/null")
		preps=(--prepare true)
		cmds+=(-n "notesoup index new $n" "NOTESOUP_SEARCH_INDEX=1 $NS search '$q' ${roots[*]} --cache-dir $idx >/dev/null")
		preps+=(--prepare "rm -rf $idx/index/answers")
		cmds+=(-n "notesoup index again $n" "NOTESOUP_SEARCH_INDEX=1 $NS search '$q' ${roots[*]} --cache-dir $idx >/dev/null")
		preps+=(--prepare true)
		cmds+=(-n "notesoup raw new $n" "NOTESOUP_SEARCH_INDEX=0 $NS search '$q' ${roots[*]} --cache-dir $rawc >/dev/null")
		preps+=(--prepare "rm -rf $rawc")
		# -i: rg and notesoup search exit 1 when nothing matches (the nowhere query).
		hf "newquery-$n" -i --runs "$BENCH_RUNS" --warmup 1 "${preps[@]}" "${cmds[@]}"
		# deja-vu right after, in its own hyperfine run: its common and
		# non-ASCII queries take tens of seconds per GB, so it gets
		# DEJA_RUNS runs (after one warm-up: its first search may bring its
		# index up to date).
		if [ -n "$DEJA" ]; then
			hf "newquery-deja-$n" -i --runs "${DEJA_RUNS:-3}" --warmup "${DEJA_WARMUP:-1}" \
				-n "deja $n" "${dejaenv[*]} $DEJA search --json '$q' >/dev/null"
		fi
		rm -rf "$idx/index/answers" "$rawc"
		echo "$(load)" >"$out/newquery-$n.load"
		NOTESOUP_SEARCH_INDEX=1 /usr/bin/time -f '%U %S %e %M' -o "$out/newquery-$n.cpu" "$NS" search "$q" "${roots[@]}" --cache-dir "$idx" >/dev/null || [ $? -eq 1 ]
		NOTESOUP_SEARCH_INDEX=1 /usr/bin/time -f '%U %S %e %M' -o "$out/newquery-again-$n.cpu" "$NS" search "$q" "${roots[@]}" --cache-dir "$idx" >/dev/null || [ $? -eq 1 ]
		NOTESOUP_SEARCH_INDEX=0 /usr/bin/time -f '%U %S %e %M' -o "$out/newquery-raw-$n.cpu" "$NS" search "$q" "${roots[@]}" --cache-dir "$rawc" >/dev/null || [ $? -eq 1 ]
		# Every session (--json: the engine verifies all, for an exact total).
		rm -rf "$idx/index/answers"
		NOTESOUP_SEARCH_INDEX=1 /usr/bin/time -f '%U %S %e %M' -o "$out/newquery-all-$n.cpu" "$NS" search "$q" "${roots[@]}" --cache-dir "$idx" --json --limit 0 >"$out/newquery-answer-$n.json" || [ $? -eq 1 ]
		/usr/bin/time -f '%U %S %e' -o "$out/newquery-rg-$n.cpu" rg -uu -F -i -c "$q" "$CL" "$PI" "$CX" >/dev/null || true
	done
	# The first query after files changed, beside rg over the same files:
	# a Pi session grew by one message (each run restores it and appends
	# again, so every run finds it changed), and a new Claude session
	# appeared (each run adds another copy of one under a new name). The
	# corpus is restored afterwards.
	live=$(find "$PI" -name '*.jsonl' | sort | sed -n 1p)
	born=$(find "$CL" -name '*.jsonl' -not -path '*/subagents/*' | sort | sed -n 1p)
	bornid=$(basename "$born" .jsonl) # the copy gets a new session id, in its name and its rows
	cp -p "$live" "$BENCH_DIR/live.bench-orig"
	rm -f "$BENCH_DIR/born.list"
	line='{"type":"message","id":"bench0001","parentId":null,"timestamp":"2026-12-02T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"bench appended zqxappend"}],"timestamp":1796208043000}}'
	hf newquery-changed -i --runs "$BENCH_RUNS" --warmup 1 \
		--prepare "cp -p $BENCH_DIR/live.bench-orig $live && printf '%s\\n' '$line' >>$live" \
		--prepare "u=\$(cat /proc/sys/kernel/random/uuid) && sed s/$bornid/\$u/g $born >$(dirname "$born")/\$u.jsonl && echo $(dirname "$born")/\$u.jsonl >>$BENCH_DIR/born.list" \
		--prepare true \
		-n "notesoup after an append" "NOTESOUP_SEARCH_INDEX=1 $NS search zqxappend ${roots[*]} --cache-dir $idx >/dev/null" \
		-n "notesoup after a new session" "NOTESOUP_SEARCH_INDEX=1 $NS search zqxappend ${roots[*]} --cache-dir $idx >/dev/null" \
		-n "rg -uu -F -i -c after a change" "rg -uu -F -i -c zqxappend $CL $PI $CX >/dev/null"
	[ -f "$BENCH_DIR/born.list" ] && xargs rm -f <"$BENCH_DIR/born.list" && rm -f "$BENCH_DIR/born.list"
	cp -p "$BENCH_DIR/live.bench-orig" "$live"
	printf '%s\n' "$line" >>"$live"
	echo "$(load)" >"$out/newquery-append.load"
	NOTESOUP_SEARCH_INDEX=1 /usr/bin/time -f '%U %S %e %M' -o "$out/newquery-append.cpu" "$NS" search zqxappend "${roots[@]}" --cache-dir "$idx" --json --limit 0 --stats >"$out/newquery-append.json" 2>"$out/newquery-append.stats"
	mv "$BENCH_DIR/live.bench-orig" "$live"
fi

# 3. Listing sessions across harnesses.
# Cold: no description cache (the first listing after every file changed);
# warm: unchanged files, descriptions from $XDG_CACHE_HOME/notesoup/sessions.
xdg=$BENCH_DIR/xdg-cache
step sessions && hf sessions --runs "$BENCH_RUNS" --warmup 1 \
	--prepare "rm -rf $xdg" --prepare true \
	-n "notesoup history sessions cold" "XDG_CACHE_HOME=$xdg $NS history sessions ${roots[*]} --limit 0 --json >/dev/null" \
	-n "notesoup history sessions warm" "XDG_CACHE_HOME=$xdg $NS history sessions ${roots[*]} --limit 0 --json >/dev/null"

# 4. Peak memory of decoding a 200 MB transcript.
memroot=$memdir/home/.pi/agent/sessions
step memory && /usr/bin/time -f '%M' -o "$out/mem.rss" "$BENCH_DIR/bin/decodeall" -harness pi -root "$memroot" >"$out/mem.json"

# 5. Helper round trips as a harness pays them (a process per request, start
# to answer) beside a Node.js process that only reads the request and writes
# an answer: the light `notesoup helper` (what make build installs and the
# mods run) and the full build's (what go install gives), over
# the bundled samples in an isolated home. hyperfine subtracts the shell.
if step helper; then
	hdir=$BENCH_DIR/helper-home
	rm -rf "$hdir" && mkdir -p "$hdir/proj"
	export HOME=$hdir NOTESOUP_HOME=$hdir/.notesoup CLAUDE_CONFIG_DIR=$root/samples/claude \
		PI_CODING_AGENT_DIR=$root/samples/pi CODEX_HOME=$root/samples/codex
	printf '%s' '{"v":1,"op":"notes.write","caller":{"cwd":"'"$hdir/proj"'"},"args":{"name":"plan.md","content":"# Plan\nship\n"}}' >"$hdir/write.json"
	printf '%s' '{"v":1,"op":"notes.read","caller":{"cwd":"'"$hdir/proj"'"},"args":{"name":"plan.md"}}' >"$hdir/notes-read.json"
	printf '%s' '{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"model":"m","model_window":200000}}' >"$hdir/limits.json"
	printf '%s' '{"v":1,"op":"history.list","args":{"session":"claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001","limit":20}}' >"$hdir/history-list.json"
	"$NS" helper <"$hdir/write.json" | grep -q '"ok":true'
	node_rt='let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const r=JSON.parse(d);process.stdout.write(JSON.stringify({v:1,ok:true,result:{echo:r.op}})+"\n")})'
	cmds=()
	for op in notes-read limits history-list; do
		cmds+=(-n "notesoup helper $op" "$NS helper <$hdir/$op.json")
		cmds+=(-n "full build helper $op" "$NSFULL helper <$hdir/$op.json")
	done
	# The same page with the 1 GB corpus's Claude sessions as the roots: the
	# cost of one history call must not grow with the sessions on the machine.
	big=$(find "$CL" -name '*.jsonl' -size +200k | sort | sed -n 1p) # sed reads all: no SIGPIPE under pipefail
	# The replica's transcripts are all smaller: its largest main session.
	[ -n "$big" ] || big=$(find "$CL" -name '*.jsonl' -not -path '*/subagents/*' -printf '%s %p\n' | sort -k1,1nr -k2 | sed -n 1p | cut -d' ' -f2-)
	printf '%s' '{"v":1,"op":"history.list","args":{"session":"claude:'"$(basename "$big" .jsonl)"'","limit":20}}' >"$hdir/history-list-corpus.json"
	cmds+=(-n "notesoup helper history-list over the corpus" "CLAUDE_CONFIG_DIR=$home/.claude $NS helper <$hdir/history-list-corpus.json")
	hf helper --warmup 5 --runs "${BENCH_HELPER_RUNS:-60}" "${cmds[@]}" \
		-n "node baseline" "node -e '$node_rt' <$hdir/notes-read.json"
	unset HOME NOTESOUP_HOME CLAUDE_CONFIG_DIR PI_CODING_AGENT_DIR CODEX_HOME
	export HOME=${BENCH_REAL_HOME}
fi

# 6. In-process figures: go test -bench, compared with benchstat.
if step gobench; then
	log "go test -bench (load $(load))"
	echo "$(load)" >"$out/gobench.load"
	(cd "$root" && NOTESOUP_BENCH_CORPUS=$corpus NOTESOUP_BENCH_NEEDLE=$needle \
		$GO test -run '^$' -bench . -benchtime 1x -count "$BENCH_COUNT" ./bench &&
		$GO test -run '^$' -bench Plugin -benchtime 40x -count "$BENCH_COUNT" ./host) >"$out/gobench.txt"
	(cd "$root" && $GO run "$BENCHSTAT" "$out/gobench.txt") >"$out/benchstat.txt" || log "benchstat failed; raw output in $out/gobench.txt"
fi

# Collate.
python3 "$root/bench/collate.py" "$out" "$corpus/corpus.json" >"$BENCH_DIR/results.json"
# The new-query tables (issue #21); table.py takes several runs' files to
# put corpora side by side.
python3 "$root/bench/table.py" "$BENCH_DIR/results.json" >"$BENCH_DIR/results.md"
log "results: $BENCH_DIR/results.json, $BENCH_DIR/results.md"
cat "$BENCH_DIR/results.json"
