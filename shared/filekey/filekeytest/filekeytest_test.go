package filekeytest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
)

func TestEachProof(t *testing.T) {
	before := filekey.RacyWindow
	var seen []bool
	EachProof(t, func(t *testing.T, settled bool) {
		seen = append(seen, settled)
		if want := map[bool]time.Duration{false: time.Hour, true: 0}[settled]; filekey.RacyWindow != want {
			t.Errorf("settled %v: RacyWindow %v, want %v", settled, filekey.RacyWindow, want)
		}
	})
	if len(seen) != 2 || seen[0] || !seen[1] {
		t.Errorf("ran with settled %v, want [false true]", seen)
	}
	if filekey.RacyWindow != before {
		t.Errorf("RacyWindow left at %v, want %v", filekey.RacyWindow, before)
	}
}

// TestRewriteInPlace: the rewrite keeps the size and modification time a
// key holds, changes the bytes, and for settled keys moves the change
// time, so each proof has exactly the change it must catch.
func TestRewriteInPlace(t *testing.T) {
	for _, settled := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte("first"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		k0, ok := filekey.Lstat(p)
		if !ok {
			t.Fatal("not a regular file")
		}
		RewriteInPlace(t, p, []byte("other"), settled)
		k1, _ := filekey.Lstat(p)
		if k1.Size != k0.Size || k1.MTime != k0.MTime {
			t.Errorf("settled %v: size or mtime moved: %+v, then %+v", settled, k0, k1)
		}
		if settled && k0.CTime != 0 && k1.CTime == k0.CTime {
			t.Errorf("settled: the change time did not move: %+v", k1)
		}
		if b, _ := os.ReadFile(p); string(b) != "other" {
			t.Errorf("settled %v: content %q", settled, b)
		}
	}
}
