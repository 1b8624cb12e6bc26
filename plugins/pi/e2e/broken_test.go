//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies a folder's regular files (the package files pi loads).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBrokenPackageNeverBreaksPi: a package folder without a generated file
// (tools.json, or the src/common copy) used to throw at load, and pi
// refused to start. Now pi runs the prompt without notesoup, and stderr
// says what is missing and how to fix it.
func TestBrokenPackageNeverBreaksPi(t *testing.T) {
	for _, tc := range []struct {
		name, remove, want string
	}{
		{"no tools.json", "generated/tools.json", "generated/tools.json is missing"},
		{"no src/common", "src/common", "src/common/format.ts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t, "plain.json", nil)
			pkg := filepath.Join(e.w.Dir, "pkg")
			for _, part := range []string{"src", "generated"} {
				copyTree(t, filepath.Join(e.ext, part), filepath.Join(pkg, part))
			}
			b, err := os.ReadFile(filepath.Join(e.ext, "package.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(pkg, "package.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(pkg, tc.remove)); err != nil {
				t.Fatal(err)
			}
			e.ext = pkg
			stdout, stderr := e.run(t, nil, "-p", "Say hello")
			for _, want := range []string{tc.want, "make pi-build", "extension is off"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if strings.Contains(stderr, "Failed to load extension") {
				t.Errorf("pi reports a failed extension:\n%s", stderr)
			}
			if strings.TrimSpace(stdout) == "" {
				t.Errorf("pi printed no answer")
			}
			bodies := e.bodies()
			if len(bodies) != 1 {
				t.Fatalf("model requests = %d, want 1", len(bodies))
			}
			for _, gone := range []string{"notesoup-boot", "notes_write", "empty_brain"} {
				if strings.Contains(bodies[0], gone) {
					t.Errorf("the broken extension still offers %q", gone)
				}
			}
		})
	}
}
