# notesoup — build, test and tooling entry points.
# The README's two commands are `make demo` and `make test`; keep both true.

GO      ?= go
BIN     := bin
NOTESOUP := $(BIN)/notesoup
# One command, two files that go together (internal/oneshot): notesoup built
# with the "light" tag (the CLI, the helper protocol and the hooks without
# gRPC, protobuf, go-plugin or the MCP SDK, which cost 20-30 ms of every
# start), and beside it notesoup-host, the plain build, to which notesoup
# hands the MCP server, plugin mode and anything under an external plugin.
# Users run only notesoup. (A third, helper-only binary was measured no
# faster than the light build and dropped: BENCHMARKS.md.)
NOTESOUP_HOST := $(BIN)/notesoup-host

.PHONY: e2e-opencode all build test unit cross lint proto proto-check demo e2e plugin-test bench gobench fuzz fuzz-short clean

all: build

# help: list the targets, each with the first sentence of the comment above it.
help:
	@awk '/^# / { c = c (c == "" ? "" : " ") substr($$0, 3); next } \
	  /^[a-z][a-zA-Z0-9_.-]*:([^=]|$$)/ { t = $$1; sub(/:.*/, "", t); d = c; sub("^" t ": *", "", d); \
	  if (match(d, /[.;] /)) d = substr(d, 1, RSTART); if (length(d) > 72) d = substr(d, 1, 71) "…"; \
	  if (!seen[t]++) printf "  %-26s %s\n", t, d } { c = "" }' $(MAKEFILE_LIST)
.PHONY: help

# Static (CGO_ENABLED=0): no dynamic loader at every start, and the same
# binary runs on any Linux.
build:
	CGO_ENABLED=0 $(GO) build -tags light -o $(NOTESOUP) ./cmd/notesoup
	CGO_ENABLED=0 $(GO) build -o $(NOTESOUP_HOST) ./cmd/notesoup
	rm -f $(BIN)/notesoup-helper

# test: everything CI runs.
test: lint proto-check unit cross fuzz-short plugin-test e2e

unit:
	$(GO) test -count=1 ./...
	cd examples/harness-jsonl && $(GO) test -count=1 ./... && $(GO) vet ./...
	cd harness/opencode && CGO_ENABLED=0 $(GO) build -o /dev/null . && $(GO) test -count=1 ./... && $(GO) vet ./...

# cross: build, vet and compile the tests (-exec /bin/true runs none) for
# every other platform notesoup supports, so a Linux-only syscall field or a
# 64-bit-only assumption fails here rather than on a user's machine; the
# light build (-tags light) is vetted too, having files of its own. The host
# platform, linux/amd64, is what build, lint and unit check.
CROSS_PLATFORMS := linux/arm64 linux/386 darwin/amd64 darwin/arm64
cross:
	@set -e; for p in $(CROSS_PLATFORMS); do \
	  echo "cross: $$p"; \
	  export GOOS=$${p%/*} GOARCH=$${p#*/}; \
	  $(GO) build ./...; \
	  $(GO) vet ./...; \
	  $(GO) vet -tags light ./cmd/notesoup; \
	  $(GO) test -count=1 -run '^$$' -exec /bin/true ./... >/dev/null; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Generators are pinned Go tool dependencies in tools/go.mod (buf compiles
# the .proto, protoc-gen-go and protoc-gen-go-grpc write the Go code).
BUF := $(GO) tool -modfile=../tools/go.mod buf

proto:
	cd contract && $(BUF) generate

# proto-check fails when the committed generated code is stale.
proto-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	  (cd contract && $(BUF) generate -o $$tmp) && \
	  diff -r $$tmp/harnesspb contract/harnesspb && echo "proto: generated code is current"

demo: build
	scripts/demo.sh

# fuzz: every Fuzz* target for FUZZTIME each; fuzz-short is CI's pass.
FUZZTIME ?= 2m
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

fuzz-short:
	scripts/fuzz.sh 20000x

# bench: the benchmark suite (bench/run.sh through bench/build.mk's
# bench-suite): a generated corpus, every figure beside its baseline,
# results.json for comparing commits. gobench: the in-process benchmarks
# alone.
bench: bench-suite

gobench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf $(BIN)

# Each plugin (plugins/<name>/build.mk) and the e2e harness (e2e/build.mk)
# add their own targets and append them to these lists, so the top-level
# targets stay one line each.
PLUGIN_TEST_TARGETS :=
E2E_TARGETS :=
-include plugins/*/build.mk
-include e2e/build.mk
-include bench/build.mk

# plugin-test: typecheck, validate and unit-test every plugin.
plugin-test: $(PLUGIN_TEST_TARGETS)

# e2e-opencode: the pinned OpenCode against the scripted model server. Its
# search tools run ripgrep, which scripts/need.sh installs when missing.
e2e-opencode: tools
	@scripts/need.sh rg:ripgrep
	$(GO) test -tags e2e -count=1 -run TestOpenCodeRuns ./e2e/opencode/

E2E_TARGETS += e2e-opencode

# e2e: real harness CLIs against the scripted model server.
e2e: $(E2E_TARGETS)
