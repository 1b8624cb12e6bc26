// Package bench holds notesoup's benchmark suite: in-process benchmarks
// (decode throughput per harness, cross-session search cold and warm,
// session listing, decode heap) over a corpus from testkit/corpus, and the
// scripts that compare whole processes against cat, jq and rg with
// hyperfine. None of it runs in `make test`; `make bench-suite` runs it.
package bench
