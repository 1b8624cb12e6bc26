# plugins/codex/build.mk — the Codex integration's checks and end-to-end run.
# Included by the top-level Makefile (-include plugins/*/build.mk).
#
#   make codex-test  unit tests of notesoup install/uninstall codex, the hook
#                    (harness/codex, through notesoup) and
#                    the capability table (docs/harnesses.md) against the code
#   make e2e-codex   the real codex (e2e/install.sh) wired by
#                    `notesoup install codex` against the scripted Responses
#                    server, isolated HOME and CODEX_HOME (also run by make e2e)

.PHONY: codex-test e2e-codex

codex-test:
	$(GO) test -count=1 -run 'Codex|Install|Uninstall|Unmerge|Hook|Rollout|ContextTokens|ThreadID|WarningText|ReadOptional|Harnesses|ReplaceIf' ./cmd/notesoup/ ./harness/codex/ ./harness/builtins/

e2e-codex: build
	e2e/install.sh >/dev/null
	NOTESOUP_BIN=$(CURDIR)/$(NOTESOUP) $(GO) test -tags e2e -count=1 -v ./e2e/codex/

PLUGIN_TEST_TARGETS += codex-test
E2E_TARGETS += e2e-codex
