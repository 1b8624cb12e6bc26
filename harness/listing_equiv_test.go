package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/shared/filekey/filekeytest"
	"github.com/notesoup/notesoup/shared/history"
)

// TestCachedListingIsTheDescription: listing the recorded transcripts and
// the samples of every built-in harness through the description cache, cold
// and then warm from its file, gives the same sessions, byte for byte as
// JSON, as describing every file afresh; with the cached keys racy (proven
// by their tails) and settled (proven by a stat).
func TestCachedListingIsTheDescription(t *testing.T) {
	filekeytest.EachProof(t, func(t *testing.T, _ bool) { testCachedListing(t) })
}

func testCachedListing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("NOTESOUP_HOME", filepath.Join(tmp, "notesoup"))
	listed := 0
	for _, name := range builtins.Names() {
		var roots []string
		for _, r := range []string{filepath.Join("..", "testdata", "transcripts", name), filepath.Join("..", "samples", name)} {
			if fi, err := os.Stat(r); err == nil && fi.IsDir() {
				abs, err := filepath.Abs(r)
				if err != nil {
					t.Fatal(err)
				}
				roots = append(roots, abs)
			}
		}
		if len(roots) == 0 {
			continue
		}
		list := func(cache *harness.DescriptionCache) []byte {
			t.Helper()
			b, ok := builtins.New(name)
			if !ok {
				t.Fatalf("no built-in %s", name)
			}
			b.Cache = cache
			var got []history.Session
			err := b.ListSessions(context.Background(), contract.SessionFilter{Roots: roots}, func(s history.Session) error {
				got = append(got, s)
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			j, err := json.MarshalIndent(got, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			listed += len(got)
			return j
		}
		want := list(nil)
		cachePath := filepath.Join(tmp, "cache", name+".bin")
		for _, pass := range []string{"cold", "warm", "warm again"} {
			if got := list(harness.NewDescriptionCache(cachePath)); !bytes.Equal(got, want) {
				t.Errorf("%s, %s cache: listed\n%s\nwant\n%s", name, pass, got, want)
			}
		}
		if fi, err := os.Stat(cachePath); string(want) != "null" && (err != nil || fi.Size() == 0) {
			t.Errorf("%s: no cache written: %v", name, err)
		}
	}
	if listed == 0 {
		t.Fatal("no sessions listed: the test proves nothing")
	}
}
