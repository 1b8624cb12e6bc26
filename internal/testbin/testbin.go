// Package testbin builds the notesoup binary once per test process and lays
// out an isolated environment over the bundled sample corpus, so tests can
// drive notesoup as a real process the way harnesses do.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/notesoup/notesoup/internal/handover"
)

var (
	once  sync.Once
	built string
	err   error

	lightOnce  sync.Once
	lightBuilt string
	lightErr   error
)

// Root returns the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Notesoup builds cmd/notesoup, the full build (what `go install` gives),
// into a temporary directory (once) and returns its path.
func Notesoup() (string, error) {
	once.Do(func() {
		dir, e := os.MkdirTemp("", "notesoup-testbin")
		if e != nil {
			err = e
			return
		}
		built = filepath.Join(dir, "notesoup")
		err = goBuild(built)
	})
	return built, err
}

// Light builds cmd/notesoup with the "light" tag (what `make build`
// installs as bin/notesoup) once, with the full build beside it under the
// name it hands commands to (handover.HostBinary, "notesoup-host"), and
// returns the light build's path.
func Light() (string, error) {
	lightOnce.Do(func() {
		full, e := Notesoup()
		if e != nil {
			lightErr = e
			return
		}
		dir := filepath.Join(filepath.Dir(full), "light")
		if lightErr = os.Mkdir(dir, 0o755); lightErr != nil {
			return
		}
		lightBuilt = filepath.Join(dir, "notesoup")
		if lightErr = goBuild(lightBuilt, "-tags", "light"); lightErr != nil {
			return
		}
		lightErr = os.Link(full, filepath.Join(dir, handover.HostBinary))
	})
	return lightBuilt, lightErr
}

// goBuild builds cmd/notesoup into out with the extra go build flags.
func goBuild(out string, flags ...string) error {
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, "./cmd/notesoup")...)
	cmd.Dir = Root()
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// Main runs a package's tests and then removes the binaries built for them;
// a package whose tests call Notesoup or Light runs it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
	}
	os.Exit(code)
}

// SampleEnv returns environment variables that point every harness's
// session roots at the bundled sample corpus and notesoup's home at home,
// with the process environment's own harness variables removed.
func SampleEnv(home string) []string {
	samples := filepath.Join(Root(), "samples")
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "CLAUDE_CONFIG_DIR", "PI_CODING_AGENT_DIR", "CODEX_HOME", "NOTESOUP_HOME", "NOTESOUP_PLUGIN_DIR", "HOME", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"NOTESOUP_HOME="+filepath.Join(home, ".notesoup"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(samples, "claude"),
		"PI_CODING_AGENT_DIR="+filepath.Join(samples, "pi"),
		"CODEX_HOME="+filepath.Join(samples, "codex"),
	)
}

// TestPlugin builds the host's test plugin into dir as the external plugin
// of harness (notesoup-harness-<harness>) and returns its path. It answers
// Thresholds with the source "testplugin", so a test can tell its answers
// from a built-in's.
func TestPlugin(t testing.TB, dir, harness string) string {
	t.Helper()
	p := filepath.Join(dir, "notesoup-harness-"+harness)
	cmd := exec.Command("go", "build", "-o", p, "./host/internal/testplugin")
	cmd.Dir = Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the test plugin: %v\n%s", err, out)
	}
	return p
}

// Expect runs cmd and checks its outcome: with wantErr set, a non-zero exit
// whose stderr holds wantErr; else a zero exit whose stdout holds wantOut.
// It returns stdout.
func Expect(t testing.TB, cmd *exec.Cmd, wantOut, wantErr string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if wantErr != "" {
		if err == nil || !strings.Contains(stderr.String(), wantErr) {
			t.Fatalf("%s: exit %v, stderr %q; want a failure saying %q", cmd.Path, err, stderr.String(), wantErr)
		}
		return stdout.String()
	}
	if err != nil || !strings.Contains(stdout.String(), wantOut) {
		t.Fatalf("%s: exit %v, stdout %.300q, stderr %q; want stdout holding %q", cmd.Path, err, stdout.String(), stderr.String(), wantOut)
	}
	return stdout.String()
}

// Installed is the notesoup under test of an end-to-end test that runs a
// real harness CLI: $NOTESOUP_BIN when set (a build made elsewhere), else
// repo's bin/notesoup, which `make build` makes (the e2e targets depend on
// it). It fails the test, naming both ways, when neither is there.
func Installed(t testing.TB, repo string) string {
	t.Helper()
	bin := os.Getenv("NOTESOUP_BIN")
	if bin == "" {
		bin = filepath.Join(repo, "bin", "notesoup")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("notesoup binary missing (%v); run make build or set NOTESOUP_BIN", err)
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
