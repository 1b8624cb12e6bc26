# plugins/loop-boundary/build.mk — included by the top-level Makefile (run from the repo root).
#
#   make loop-boundary-plugin-test   typecheck against the contract of the pinned binary, validate --strict, unit tests
#   make loop-boundary-e2e           the real claude against the scripted model server, crossing two loop boundaries
#
# Needs e2e/install.sh (the pinned CLIs in .tools/npm, run here when missing), node/npm and go (the contract extractor,
# tools/claude-contract).

LB_DIR      := plugins/loop-boundary
LB_BUILD    := $(LB_DIR)/build
LB_VERSION  := 2.1.332
LB_CLAUDE   := .tools/npm/node_modules/@anthropic-ai/claude-code-linux-x64/claude
LB_CONTRACT := $(LB_BUILD)/contract/claude-code/index.d.ts
# claude plugin validate/test run with a private HOME so nothing is read from or written to the user's ~/.claude.
LB_ENV      := env -i PATH="$(PATH)" HOME=$(CURDIR)/$(LB_BUILD)/home IS_SANDBOX=1 \
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1

.PHONY: loop-boundary-plugin-test loop-boundary-cli loop-boundary-contract loop-boundary-npm \
	loop-boundary-typecheck loop-boundary-validate loop-boundary-unit loop-boundary-e2e

loop-boundary-plugin-test: loop-boundary-typecheck loop-boundary-validate loop-boundary-unit

loop-boundary-cli:
	@test -x $(LB_CLAUDE) || e2e/install.sh

# The mod API's declarations, extracted from the very binary the project pins (never committed) by tools/claude-contract;
# a change to the extractor extracts again.
$(LB_CONTRACT): $(wildcard tools/claude-contract/*.go) | loop-boundary-cli
	$(GO) -C tools run ./claude-contract -bin $(CURDIR)/$(LB_CLAUDE) -out $(CURDIR)/$(LB_BUILD)/contract -version $(LB_VERSION)

loop-boundary-contract: $(LB_CONTRACT)

loop-boundary-npm:
	cd $(LB_DIR) && npm ci --no-audit --no-fund

loop-boundary-typecheck: loop-boundary-contract loop-boundary-npm
	cd $(LB_DIR) && ./node_modules/.bin/tsc -p tsconfig.json

loop-boundary-validate: loop-boundary-cli
	mkdir -p $(LB_BUILD)/home
	$(LB_ENV) $(LB_CLAUDE) plugin validate $(LB_DIR) --strict

loop-boundary-unit: loop-boundary-cli
	mkdir -p $(LB_BUILD)/home
	$(LB_ENV) $(LB_CLAUDE) plugin test $(LB_DIR)

# Two real /loop wakeups (the engine clamps ScheduleWakeup to at least 60 s and fires on the minute), six resumed
# runs and a terminal (pty) run: about 5 minutes.
loop-boundary-e2e: loop-boundary-cli
	go test -tags e2e -count=1 -timeout 15m -v ./$(LB_DIR)/e2e/

PLUGIN_TEST_TARGETS += loop-boundary-plugin-test
E2E_TARGETS += loop-boundary-e2e
