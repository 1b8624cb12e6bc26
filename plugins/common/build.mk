# plugins/common/build.mk — the TypeScript the Claude Code mod and the Pi
# extension share (included by the top-level Makefile):
#   src/helper-client.ts  the helper protocol client (the process runner is each plugin's)
#   src/step-tracker.ts   when a `step` reset event may be left out (step_needed)
#   src/format.ts         the text made of contents, window ids, token counts, errors
#
# Each plugin loads only files inside its own folder (Claude Code installs a
# plugin by copying its folder; Pi packs `src/`), so neither can import
# plugins/common: each build copies src/ byte-identical into the plugin
# (plugins/claude/hooks/common, plugins/pi/src/common; never committed).
#
#   make common-test   typecheck src/ as the hooks engine sees it (no Node
#                      types), then the unit tests with node --test
COMMON_DIR := plugins/common
COMMON_SRC := $(COMMON_DIR)/src

.PHONY: common-test

# common-copy,DIR: DIR becomes a byte-identical copy of $(COMMON_SRC). A copy
# edited in place (newer than its canonical file and different) is refused
# rather than overwritten, so the edit is not lost silently: it belongs in
# $(COMMON_SRC). The diff is the check that the plugin holds the canonical
# files and nothing else.
define common-copy
	@mkdir -p $(1)
	@for f in $(1)/*.ts; do \
	  [ -e "$$f" ] || continue; c=$(COMMON_SRC)/$${f##*/}; \
	  if [ -e "$$c" ] && [ "$$f" -nt "$$c" ] && ! cmp -s "$$f" "$$c"; then \
	    echo "$$f was edited in place; edit $(COMMON_SRC) instead (the copy is replaced at every build), then remove $$f" >&2; exit 1; \
	  fi; \
	done
	rm -rf $(1) && cp -R $(COMMON_SRC) $(1)
	diff -r $(COMMON_SRC) $(1)
endef

common-test:
	cd $(COMMON_DIR) && npm ci --no-audit --no-fund --silent
	cd $(COMMON_DIR) && node_modules/.bin/tsc -p tsconfig.src.json
	cd $(COMMON_DIR) && rm -rf build && node_modules/.bin/tsc -p tsconfig.json && node --test build/test/

PLUGIN_TEST_TARGETS += common-test
