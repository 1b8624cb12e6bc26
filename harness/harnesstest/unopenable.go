package harnesstest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pathMax is the longest path open(2) takes, in bytes with its NUL.
func pathMax(t *testing.T) int {
	switch runtime.GOOS {
	case "linux":
		return 4096
	case "darwin":
		return 1024
	}
	t.Skipf("no known path limit on %s", runtime.GOOS)
	return 0
}

// LongRoot makes a directory whose path is so long that an entry of
// UnopenableName's length inside it cannot be opened by its path by
// anyone, root included (ENAMETOOLONG), while the directory itself and
// entries with short names can: a file or folder a walk lists and a read
// then fails on, which chmod cannot give a test that runs as root.
func LongRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	// Room for a short folder and a short file name (up to 90 bytes
	// more) and not for a folder and an unopenable name (over 200).
	target := pathMax(t) - 136
	for n := min(50, target-len(root)-1); n > 0; n = min(50, target-len(root)-1) {
		root = filepath.Join(root, strings.Repeat("d", n))
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// UnopenableName is an entry name, ending in suffix, that cannot be opened
// inside a LongRoot folder or one folder below it (a short-named one).
func UnopenableName(suffix string) string { return strings.Repeat("u", 200) + suffix }

// MakeUnopenable makes, in dir (a LongRoot or a short-named folder in it),
// a file (content not nil) or a folder named name: made relative to dir,
// the only way to make it; the test's working directory is dir afterwards.
func MakeUnopenable(t *testing.T, dir, name string, content []byte) string {
	t.Helper()
	t.Chdir(dir)
	var err error
	if content != nil {
		err = os.WriteFile(name, content, 0o644)
	} else {
		err = os.Mkdir(name, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if f, err := os.Open(p); err == nil {
		f.Close()
		t.Fatalf("%s opens; the test needs a path that cannot be", p)
	}
	return p
}
