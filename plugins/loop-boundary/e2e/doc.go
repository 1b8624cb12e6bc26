// Package e2e runs the loop-boundary Claude Code mod inside the real, pinned
// Claude Code against the scripted model server (testkit/modelserver). The
// test is behind the e2e build tag: `go test -tags e2e ./plugins/loop-boundary/e2e/`
// after e2e/install.sh, or `make loop-boundary-e2e`.
package e2e
