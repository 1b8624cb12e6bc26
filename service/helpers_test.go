package service_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notesoup/notesoup/host"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/service"
)

// newService returns a service whose built-in plugins are the real notesoup
// binary, with each harness's roots pointed at the given directories (an
// empty temporary root for a harness not named) and a temporary home.
func newService(t testing.TB, roots map[string]string) *service.Service {
	t.Helper()
	bin, err := testbin.Notesoup()
	if err != nil {
		t.Fatal(err)
	}
	h := host.New(host.WithSelf(bin), host.WithBuiltins("claude", "pi", "codex"),
		host.WithPluginDirs(t.TempDir()), host.WithTimeouts(20*time.Second, 20*time.Second, 60*time.Second))
	t.Cleanup(h.Close)
	opts := []service.Option{service.WithHome(filepath.Join(t.TempDir(), "home"))}
	for _, hz := range []string{"claude", "pi", "codex"} {
		r, ok := roots[hz]
		if !ok {
			r = t.TempDir()
		}
		opts = append(opts, service.WithRoots(hz, r))
	}
	s, err := service.New(h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// copyFile copies src to dst, creating dst's directory.
func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoRoot is the repository root.
func repoRoot() string { return testbin.Root() }
