# plugins/pi/build.mk — the Pi extension's build, tests and end-to-end run.
# Included by the top-level Makefile (-include plugins/*/build.mk).
#
#   make pi-build  the plugin-local binaries (plugins/pi/bin/notesoup, which
#                  the extension runs per request, and notesoup-host, which
#                  it hands work to), the
#                  tool definitions generated from Go (plugins/pi/generated/tools.json)
#                  src/common (a copy of plugins/common/src), and skills/
#                  and playbook/ (copies of the canonical ones, which the
#                  package.json pi.skills entry makes Pi load)
#   make pi-test   npm ci, typecheck, unit tests, those of plugins/common
#                  (also run by make plugin-test)
#   make pi-e2e    the real pi (e2e/install.sh) against the scripted model
#                  server, in an isolated HOME (also run by make e2e)

PI_DIR := plugins/pi

.PHONY: pi-build pi-common pi-skills pi-npm pi-typecheck pi-unit pi-test pi-e2e

# The helper client, step tracker and formatter the Claude mod uses too
# (plugins/common/build.mk says why a copy): Pi loads and packs src/ only.
pi-common:
	$(call common-copy,$(PI_DIR)/src/common)

# The memory and dream skills and the dream playbook, byte-identical to
# skills/ and playbook/ (the Claude mod ships the same copies): the package's
# skills/ is what Pi loads (package.json pi.skills), playbook/ sits beside it
# where skills/dream/SKILL.md names it. The diff is the check.
pi-skills:
	rm -rf $(PI_DIR)/skills $(PI_DIR)/playbook
	cp -R skills $(PI_DIR)/skills
	cp -R playbook $(PI_DIR)/playbook
	diff -r skills $(PI_DIR)/skills
	diff -r playbook $(PI_DIR)/playbook

pi-build: build pi-common pi-skills
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

# dist-pi: for each of DIST_PLATFORMS (Makefile), a Pi package that carries
# the notesoup binaries of its platform (taken from dist-release's build),
# so that on a machine without Go
#   tar xzf notesoup-pi-<version>-<os>-<arch>.tar.gz && pi install ./notesoup-pi
# works (pi install takes a local folder and loads it in place; it does not
# install from a tarball). notesoup install pi stages the same package in
# notesoup's install folder instead. PI_PACKAGE_FILES are package.json's
# "files" and package.json itself.
PI_PACKAGE_FILES := $(PI_DIR)/package.json $(PI_DIR)/README.md $(PI_DIR)/src $(PI_DIR)/generated $(PI_DIR)/skills $(PI_DIR)/playbook

.PHONY: dist-pi
dist-pi: dist-release
	@set -e; for p in $(DIST_PLATFORMS); do \
	  os=$${p%/*} arch=$${p#*/}; rel=dist/notesoup-$(DIST_VERSION)-$$os-$$arch; \
	  name=notesoup-pi-$(DIST_VERSION)-$$os-$$arch; d=dist/$$name/notesoup-pi; \
	  echo "dist: $$name"; rm -rf dist/$$name && mkdir -p $$d/bin; \
	  cp -R $(PI_PACKAGE_FILES) $$d/; \
	  cp $$rel/bin/notesoup $$rel/bin/notesoup-host $$d/bin/; \
	  tar -C dist/$$name -czf dist/$$name.tar.gz notesoup-pi; \
	done
