# e2e/build.mk — the pinned harness CLIs and the real-CLI runs of the model
# server itself. Included by the top-level Makefile.

.PHONY: tools record e2e-modelserver

# tools: install the pinned harness CLIs into .tools/npm.
tools:
	e2e/install.sh

# record: re-record the real transcripts and rebuild samples/. Re-recording
# changes ids, times and file names, so goldens must be reviewed after it.
record: tools
	e2e/record.sh testdata/transcripts
	e2e/samples.sh

# e2e-modelserver: each real CLI completes a scripted turn against the
# scripted server (protocol coverage for the recordings).
e2e-modelserver: tools
	$(GO) test -tags e2e -count=1 ./testkit/modelserver/

E2E_TARGETS += e2e-modelserver

# e2e-dream: notesoup dream with each pinned CLI (claude -p with the mod,
# codex exec with the MCP server, pi -p with the extension) against the
# scripted server, then --undo.
e2e-dream: tools plugin-claude pi-build
	$(GO) test -tags e2e -count=1 ./e2e/dream/

E2E_TARGETS += e2e-dream

# e2e-gemini: the pinned Gemini CLI wired by `notesoup install gemini`: the
# SessionStart boot, the notes tools over MCP, a note written by a scripted
# call.
e2e-gemini: tools build
	$(GO) test -tags e2e -count=1 ./e2e/gemini/

E2E_TARGETS += e2e-gemini

# e2e-vault: the vault round trip with each pinned CLI (claude, codex, pi):
# a recorded session is synced, its transcript deleted, still found by
# history list and search, restored byte for byte and resumed by the CLI's
# own resume, the resumed request carrying the old conversation.
e2e-vault: tools build plugin-claude pi-build
	$(GO) test -tags e2e -count=1 ./e2e/vault/

E2E_TARGETS += e2e-vault

# e2e-copilot: the pinned GitHub Copilot CLI wired by `notesoup install
# copilot`: the sessionStart boot, the notes tools over MCP, a note written
# by a scripted call, uninstall giving settings.json back.
e2e-copilot: tools build
	$(GO) test -tags e2e -count=1 ./e2e/copilot/

E2E_TARGETS += e2e-copilot
