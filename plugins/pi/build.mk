# plugins/pi/build.mk — the Pi extension's build, tests and end-to-end run.
# Included by the top-level Makefile (-include plugins/*/build.mk).
#
#   make pi-build  the plugin-local binaries (plugins/pi/bin/notesoup, which
#                  the extension runs per request, and notesoup-host, which
#                  it hands work to), the
#                  tool definitions generated from Go (plugins/pi/generated/tools.json)
#                  and src/common (a copy of plugins/common/src)
#   make pi-test   npm ci, typecheck, unit tests, those of plugins/common
#                  (also run by make plugin-test)
#   make pi-e2e    the real pi (e2e/install.sh) against the scripted model
#                  server, in an isolated HOME (also run by make e2e)

PI_DIR := plugins/pi

.PHONY: pi-build pi-common pi-npm pi-typecheck pi-unit pi-test pi-e2e

# The helper client, step tracker and formatter the Claude mod uses too
# (plugins/common/build.mk says why a copy): Pi loads and packs src/ only.
pi-common:
	$(call common-copy,$(PI_DIR)/src/common)

pi-build: build pi-common
	mkdir -p $(PI_DIR)/bin
	cp $(NOTESOUP) $(PI_DIR)/bin/notesoup.tmp && mv $(PI_DIR)/bin/notesoup.tmp $(PI_DIR)/bin/notesoup
	rm -f $(PI_DIR)/bin/notesoup-helper
	cp $(NOTESOUP_HOST) $(PI_DIR)/bin/notesoup-host.tmp && mv $(PI_DIR)/bin/notesoup-host.tmp $(PI_DIR)/bin/notesoup-host
	$(GO) run ./$(PI_DIR)/gen -out $(PI_DIR)/generated/tools.json

# npm ci from the committed lock: pinned typescript, @types/node and Pi
# itself (for its extension API types).
pi-npm:
	cd $(PI_DIR) && npm ci --no-audit --no-fund --ignore-scripts

pi-typecheck: pi-npm pi-common
	cd $(PI_DIR) && npm run --silent typecheck

# Unit tests are compiled with tsc (Node 20 cannot run TypeScript) and run
# with node --test; they use the plugin-local binary for the helper calls.
pi-unit: pi-npm pi-build
	cd $(PI_DIR) && npm run --silent test

pi-test: pi-typecheck pi-unit common-test

pi-e2e: pi-build
	e2e/install.sh >/dev/null
	$(GO) test -tags e2e -count=1 -v ./$(PI_DIR)/e2e/

PLUGIN_TEST_TARGETS += pi-test
E2E_TARGETS += pi-e2e
