# bench/build.mk: the benchmark suite (included by the top Makefile).
# `make bench-suite` generates a corpus in a temp dir (BENCH_SIZE, default
# 1G), runs every figure beside its baseline (cat, jq, rg) with hyperfine and
# go test -bench + benchstat, and writes $(BENCH_DIR)/results.json. It is
# not part of `make test`.
BENCH_SIZE ?= 1G
BENCH_DIR  ?= $(or $(TMPDIR),/tmp)/notesoup-bench

.PHONY: bench-suite bench-quick

bench-suite:
	BENCH_SIZE=$(BENCH_SIZE) BENCH_DIR=$(BENCH_DIR) bench/run.sh

# bench-quick: the same suite over a 64 MB corpus, for a first look.
bench-quick:
	BENCH_SIZE=64M BENCH_RUNS=3 BENCH_COUNT=2 BENCH_DIR=$(BENCH_DIR) bench/run.sh
