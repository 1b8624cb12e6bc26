// Package filekeytest is what the tests of code that proves files
// unchanged with shared/filekey share (the search index, the session
// description cache): running a test under both proofs filekey offers,
// and the change both proofs must catch, a rewrite in place at the same
// size with the modification time put back. It sits beside filekey, as
// httptest beside net/http, because it knows filekey's racy window and
// nothing of the packages that use it; only tests import it.
package filekeytest

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
)

// WithRacyWindow sets filekey.RacyWindow to w until t ends. The window is
// a package variable: tests that set it must not run in parallel.
func WithRacyWindow(t testing.TB, w time.Duration) {
	t.Helper()
	old := filekey.RacyWindow
	filekey.RacyWindow = w
	t.Cleanup(func() { filekey.RacyWindow = old })
}

// EachProof runs test twice, as subtests: with every key racy (a window
// of an hour: each is proven by its tail hash) and with every key settled
// (no window: a stat alone proves it). settled says which.
func EachProof(t *testing.T, test func(t *testing.T, settled bool)) {
	t.Helper()
	for _, c := range []struct {
		name   string
		window time.Duration
	}{
		{"racy keys, proven by the tail hash", time.Hour},
		{"settled keys, proven by a stat", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			WithRacyWindow(t, c.window)
			test(t, c.window == 0)
		})
	}
}

// CTime is path's change time (0 where the system does not say).
func CTime(t testing.TB, path string) int64 {
	t.Helper()
	k, ok := filekey.Lstat(path)
	if !ok {
		t.Fatalf("%s: not a regular file", path)
	}
	return k.CTime
}

// maxWait bounds how long RewriteInPlace waits for the change time to
// move: far above the few milliseconds of a coarse kernel clock.
const maxWait = 30 * time.Second

// RewriteInPlace writes content (as long as the file) over path and puts
// its modification time back, so the size and mtime a key holds are
// unchanged. With settled, the change time must move too: settled keys,
// which a stat alone proves, are taken RacyWindow after the change, so a
// rewrite in the same tick of the kernel's clock as the key is the racy
// case they exclude by construction; the times are set again until the
// change time moves (on systems that report one).
func RewriteInPlace(t testing.TB, path string, content []byte, settled bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != int64(len(content)) {
		t.Fatalf("%s: %d bytes, the rewrite has %d: a rewrite in place keeps the size", path, fi.Size(), len(content))
	}
	before := CTime(t, path)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt(content, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(maxWait)
	for {
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if !settled || before == 0 || CTime(t, path) != before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the change time did not move in %v", path, maxWait)
		}
		time.Sleep(time.Millisecond)
	}
	after, err := os.Stat(path)
	if err != nil || after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("%s: the rewrite changed the size or the modification time (%v)", path, err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("%s: the rewrite did not take (%v)", path, err)
	}
}
