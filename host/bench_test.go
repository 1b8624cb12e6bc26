package host

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// notesoupBinary builds cmd/notesoup once for the benchmarks, so they
// measure the real built-in plugins rather than the test plugin.
func notesoupBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "notesoup")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/notesoup").CombinedOutput(); err != nil {
		b.Fatalf("building notesoup: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkPluginColdStart measures launch, handshake and the first
// Describe of a built-in harness plugin (a fresh host each iteration).
func BenchmarkPluginColdStart(b *testing.B) {
	bin := notesoupBinary(b)
	empty := b.TempDir()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h := New(WithSelf(bin), WithBuiltins("claude"), WithPluginDirs(empty))
		if _, _, err := h.Describe(ctx, "claude"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		h.Close()
		b.StartTimer()
	}
}

// BenchmarkPluginWarmCall measures one unary call to a running plugin.
func BenchmarkPluginWarmCall(b *testing.B) {
	bin := notesoupBinary(b)
	h := New(WithSelf(bin), WithBuiltins("claude"), WithPluginDirs(b.TempDir()))
	defer h.Close()
	ctx := context.Background()
	hz, err := h.Harness(ctx, "claude")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := hz.BootBinding(ctx, "s", i%9); err != nil {
			b.Fatal(err)
		}
	}
}
