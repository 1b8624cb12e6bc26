# plugins/claude/build.mk — the notesoup Claude Code mod (included by the
# top-level Makefile). Targets:
#   plugin-claude        the loadable plugin: bin/notesoup and
#                        notesoup-host (which it hands work to) inside it, the
#                        generated tool definitions, the extracted contract,
#                        hooks/common (a copy of plugins/common/src)
#   plugin-claude-test   typecheck, validate --strict, claude plugin test,
#                        the Go tests of the generator and the source gate,
#                        the tests of plugins/common
#   e2e-claude-mod       the real claude binary against the scripted server
CLAUDE_MOD        := plugins/claude
CLAUDE_MOD_VERSION := 2.1.332
# The native binary the pinned npm package installs (e2e/install.sh).
CLAUDE_MOD_CLI    := .tools/npm/node_modules/@anthropic-ai/claude-code-linux-x64/claude
CLAUDE_MOD_TYPES  := $(CLAUDE_MOD)/.claude-plugin/types
CLAUDE_MOD_HOME   := $(CURDIR)/$(BIN)/claude-mod-home

.PHONY: plugin-claude plugin-claude-test plugin-claude-copies e2e-claude-mod claude-cli

claude-cli:
	@test -x $(CLAUDE_MOD_CLI) || e2e/install.sh >/dev/null

# The contract is extracted from the pinned binary, never committed, by
# tools/claude-contract (in the tools module, tools/go.mod, beside the other
# build-time tools); a change to the extractor extracts again.
$(CLAUDE_MOD_TYPES)/claude-code/index.d.ts: $(wildcard tools/claude-contract/*.go) | claude-cli
	$(GO) -C tools run ./claude-contract -bin $(CURDIR)/$(CLAUDE_MOD_CLI) -out $(CURDIR)/$(CLAUDE_MOD_TYPES) -version $(CLAUDE_MOD_VERSION)

plugin-claude: build $(CLAUDE_MOD_TYPES)/claude-code/index.d.ts
	mkdir -p $(CLAUDE_MOD)/bin
	cp $(NOTESOUP) $(CLAUDE_MOD)/bin/notesoup.tmp && mv $(CLAUDE_MOD)/bin/notesoup.tmp $(CLAUDE_MOD)/bin/notesoup
	rm -f $(CLAUDE_MOD)/bin/notesoup-helper
	cp $(NOTESOUP_HOST) $(CLAUDE_MOD)/bin/notesoup-host.tmp && mv $(CLAUDE_MOD)/bin/notesoup-host.tmp $(CLAUDE_MOD)/bin/notesoup-host
	$(GO) run ./$(CLAUDE_MOD)/gen -dir $(CLAUDE_MOD)/hooks -tests $(CLAUDE_MOD)/tests
	$(call common-copy,$(CLAUDE_MOD)/hooks/common)
	rm -rf $(CLAUDE_MOD)/skills $(CLAUDE_MOD)/playbook
	cp -R skills $(CLAUDE_MOD)/skills
	cp -R playbook $(CLAUDE_MOD)/playbook

# The plugin's skills, dream playbook and hooks/common are byte-identical
# copies of the canonical files.
plugin-claude-copies: plugin-claude
	diff -r skills $(CLAUDE_MOD)/skills
	diff -r playbook $(CLAUDE_MOD)/playbook
	diff -r $(COMMON_SRC) $(CLAUDE_MOD)/hooks/common

# An isolated HOME keeps the CLI from reading or writing the user's ~/.claude.
plugin-claude-test: plugin-claude plugin-claude-copies common-test
	cd $(CLAUDE_MOD) && npm ci --no-audit --no-fund --silent
	cd $(CLAUDE_MOD) && node_modules/.bin/tsc -p .
	mkdir -p $(CLAUDE_MOD_HOME)
	HOME=$(CLAUDE_MOD_HOME) CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 $(CLAUDE_MOD_CLI) plugin validate $(CLAUDE_MOD) --strict
	HOME=$(CLAUDE_MOD_HOME) CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 $(CLAUDE_MOD_CLI) plugin test $(CLAUDE_MOD)
	$(GO) test -count=1 ./$(CLAUDE_MOD)/...
	$(GO) -C tools test -count=1 ./claude-contract

PLUGIN_TEST_TARGETS += plugin-claude-test

# The real claude binary (pinned, e2e/install.sh) with the plugin loaded,
# against the scripted Anthropic server on 127.0.0.1, isolated HOME.
e2e-claude-mod: plugin-claude dist-claude
	$(GO) test -tags e2e -count=1 ./$(CLAUDE_MOD)/e2e/

E2E_TARGETS += e2e-claude-mod

# dist-claude: a local marketplace holding the plugin with its static notesoup
# binary (no Go needed to install), and its archive. Install with
#   claude plugin marketplace add <dir> && claude plugin install notesoup@notesoup
CLAUDE_MOD_DIST := dist/notesoup-claude-marketplace
CLAUDE_MOD_PKG  := $(CLAUDE_MOD_DIST)/plugins/notesoup

.PHONY: dist dist-claude
dist: dist-claude

dist-claude: plugin-claude
	rm -rf $(CLAUDE_MOD_DIST) && mkdir -p $(CLAUDE_MOD_PKG)/bin $(CLAUDE_MOD_DIST)/.claude-plugin
	CGO_ENABLED=0 $(GO) build -trimpath -tags light -o $(CLAUDE_MOD_PKG)/bin/notesoup ./cmd/notesoup
	CGO_ENABLED=0 $(GO) build -trimpath -o $(CLAUDE_MOD_PKG)/bin/notesoup-host ./cmd/notesoup
	cp -R $(CLAUDE_MOD)/.claude-plugin/plugin.json $(CLAUDE_MOD)/commands $(CLAUDE_MOD)/skills $(CLAUDE_MOD)/playbook $(CLAUDE_MOD)/README.md $(CLAUDE_MOD_PKG)/
	mkdir -p $(CLAUDE_MOD_PKG)/.claude-plugin $(CLAUDE_MOD_PKG)/hooks
	mv $(CLAUDE_MOD_PKG)/plugin.json $(CLAUDE_MOD_PKG)/.claude-plugin/plugin.json
	cp $(CLAUDE_MOD)/hooks/*.ts $(CLAUDE_MOD)/hooks/hooks.json $(CLAUDE_MOD_PKG)/hooks/
	cp -R $(CLAUDE_MOD)/hooks/common $(CLAUDE_MOD_PKG)/hooks/common
	printf '%s\n' '{"name":"notesoup","owner":{"name":"notesoup"},"plugins":[{"name":"notesoup","source":"./plugins/notesoup","description":"Notes the model keeps, clean context resets and cross-harness history"}]}' > $(CLAUDE_MOD_DIST)/.claude-plugin/marketplace.json
	tar -C dist -czf dist/notesoup-claude-$$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' $(CLAUDE_MOD)/.claude-plugin/plugin.json).tar.gz notesoup-claude-marketplace
	@echo "dist: $(CLAUDE_MOD_DIST) and dist/notesoup-claude-*.tar.gz"
