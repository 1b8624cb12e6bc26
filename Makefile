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

.PHONY: deps-check dist-release dist-sums e2e-install e2e-opencode all build test unit cross lint proto proto-check demo e2e plugin-test bench gobench fuzz fuzz-short clean

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

# test: everything CI runs, after deps-check has said what is missing.
test: deps-check lint proto-check unit cross fuzz-short plugin-test e2e

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

# e2e-opencode: the pinned OpenCode against the scripted model server: a
# scripted tool turn, and OpenCode wired by `notesoup install opencode` (the
# external plugin's installer: the notes tools over MCP, the boot block from
# plugin/notesoup.js, a note written, uninstall giving opencode.json back),
# and the plugin's budget warning once per window.
# Its search tools run ripgrep, which scripts/need.sh installs when missing.
e2e-opencode: tools
	@scripts/need.sh rg:ripgrep
	$(GO) test -tags e2e -count=1 -run 'TestOpenCode(Runs(AScriptedToolTurn|WithNotesoupInstalled)|BudgetWarning)$$' ./e2e/opencode/

E2E_TARGETS += e2e-opencode

# deps-check: every system tool the tests run, checked (and on Debian,
# Ubuntu or Homebrew installed) up front by scripts/need.sh, so a missing
# one fails here with its name rather than half-way through a test. Node
# 20.6 or later runs the pinned Pi (the pinned Claude Code and Codex run as
# native binaries and need no Node of their own); npm installs the pinned
# CLIs into .tools/ (e2e/install.sh).
deps-check:
	@scripts/need.sh go git tar tmux script:bsdutils rg:ripgrep jq sqlite3 node:nodejs npm
	@node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<6)) { console.error("deps-check: Node "+process.versions.node+" is too old; the pinned Pi needs Node 20.6 or later (nodejs.org, or your package manager)"); process.exit(1) }'
	@echo "deps-check: all tools found"

# dist: release archives (dist-release, here), the Claude Code marketplace
# (plugins/claude/build.mk), the Pi packages (plugins/pi/build.mk) and
# dist/SHA256SUMS over them all (dist-sums).
# dist-release builds, for each of DIST_PLATFORMS, dist/notesoup-<version>-
# <os>-<arch>.tar.gz: bin/notesoup (light) and bin/notesoup-host (full),
# README.md, LICENSE, the Claude marketplace and the Pi package without
# binaries under share/notesoup (notesoup install claude|pi stages them
# with the installed binaries), and SHA256SUMS of its files; then
# dist/SHA256SUMS of the archives. Static builds (CGO_ENABLED=0), so the
# linux archives run on any Linux.
DIST_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST_VERSION   ?= $(shell sed -n 's/^var Version = "\(.*\)"/\1/p' version/version.go)
DIST_LDFLAGS   := -X github.com/notesoup/notesoup/version.Version=$(DIST_VERSION)

dist: dist-sums

dist-release: dist-claude pi-build
	@set -e; for p in $(DIST_PLATFORMS); do \
	  os=$${p%/*} arch=$${p#*/}; name=notesoup-$(DIST_VERSION)-$$os-$$arch; d=dist/$$name; \
	  echo "dist: $$name"; rm -rf $$d && mkdir -p $$d/bin $$d/share/notesoup; \
	  GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(DIST_LDFLAGS)' -tags light -o $$d/bin/notesoup ./cmd/notesoup; \
	  GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(DIST_LDFLAGS)' -o $$d/bin/notesoup-host ./cmd/notesoup; \
	  cp README.md LICENSE NOTICE $$d/; \
	  cp -R $(CLAUDE_MOD_DIST) $$d/share/notesoup/claude-marketplace; rm -rf $$d/share/notesoup/claude-marketplace/plugins/notesoup/bin; \
	  mkdir -p $$d/share/notesoup/pi; cp -R $(PI_PACKAGE_FILES) $$d/share/notesoup/pi/; \
	  (cd $$d && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum > SHA256SUMS); \
	  tar -C dist -czf dist/$$name.tar.gz $$name; \
	done

# dist-sums: dist/SHA256SUMS over every archive dist made.
dist-sums: dist-release dist-pi dist-claude
	cd dist && sha256sum notesoup-$(DIST_VERSION)-*.tar.gz notesoup-pi-$(DIST_VERSION)-*.tar.gz notesoup-claude-*.tar.gz > SHA256SUMS
	@echo "dist: dist/notesoup-$(DIST_VERSION)-<os>-<arch>.tar.gz, dist/notesoup-pi-$(DIST_VERSION)-<os>-<arch>.tar.gz, dist/notesoup-claude-*.tar.gz and dist/SHA256SUMS"

# e2e-install: the archives dist built, used as on a machine without Go: the
# linux-amd64 release unpacked and run, notesoup install/uninstall of pi,
# codex and claude checked with pi list, codex mcp list and claude plugin
# list, the Pi package and the Claude marketplace archives through pi
# install and claude plugin install; fresh HOMEs, no network.
# It builds the archives of the host platform only: the tests use those, and
# `make cross` already builds every other platform (a whole `make dist` would
# cross-compile four times for nothing here).
e2e-install: tools
	$(MAKE) dist DIST_PLATFORMS=linux/amd64
	$(GO) test -tags e2e -count=1 ./e2e/install/

E2E_TARGETS += e2e-install

# e2e: real harness CLIs against the scripted model server. Last in the
# file: make reads a rule's prerequisites where the rule stands, so every
# E2E_TARGETS += above (and in the included build.mk files) must come first.
e2e: $(E2E_TARGETS)
