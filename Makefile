# notesoup — build, test and tooling entry points.
# The README's two commands are `make demo` and `make test`; keep both true.

GO      ?= go
BIN     := bin
NOTESOUP := $(BIN)/notesoup

.PHONY: all build test unit lint proto proto-check demo e2e bench fuzz clean

all: build

build:
	$(GO) build -o $(NOTESOUP) ./cmd/notesoup

# test: everything CI runs.
test: lint proto-check unit

unit:
	$(GO) test -count=1 ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

proto:
	@echo "proto: nothing yet"

proto-check:
	@echo "proto-check: nothing yet"

demo: build
	$(NOTESOUP) help

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf $(BIN)
