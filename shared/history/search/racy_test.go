package search

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
)

func TestStatProves(t *testing.T) {
	k := filekey.Key{Size: 10, MTime: 5, CTime: 6, Ino: 7, Tail: 99}
	for _, c := range []struct {
		name string
		e    *entry
		stat filekey.Key
		want bool
	}{
		{"settled, same stat (no tail read)", &entry{Key: k}, filekey.Key{Size: 10, MTime: 5, CTime: 6, Ino: 7}, true},
		{"racy: the tail must be read", &entry{Key: k, Racy: true}, filekey.Key{Size: 10, MTime: 5, CTime: 6, Ino: 7}, false},
		{"grown", &entry{Key: k}, filekey.Key{Size: 11, MTime: 5, CTime: 6, Ino: 7}, false},
		{"mtime set back after a rewrite: ctime moved", &entry{Key: k}, filekey.Key{Size: 10, MTime: 5, CTime: 8, Ino: 7}, false},
		{"replaced by a rename", &entry{Key: k}, filekey.Key{Size: 10, MTime: 5, CTime: 6, Ino: 8}, false},
		{"no entry", nil, k, false},
	} {
		if got := statProves(c.e, c.stat); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestIndexSettlesRacyKeys: keys taken just after their files changed are
// racy; a later search that proves them by their tails when they no
// longer are marks them settled in the manifest, keeping its generation
// (the index answers as before, so kept answers still hold).
func TestIndexSettlesRacyKeys(t *testing.T) {
	defer func(w time.Duration) { filekey.RacyWindow = w }(filekey.RacyWindow)
	res := genCorpus(t, 1<<20, 6)
	opts := indexOpts(t, sourcesFor(res.Layout))
	dir := filepath.Join(opts.CacheDir, indexDirName)
	filekey.RacyWindow = time.Hour
	if _, err := Search(res.Needle, opts); err != nil {
		t.Fatal(err)
	}
	before := loadManifest(dir)
	if len(before.Entries) == 0 {
		t.Fatal("nothing indexed")
	}
	for p, e := range before.Entries {
		if !e.Racy {
			t.Fatalf("%s: settled right after it was written", p)
		}
	}
	filekey.RacyWindow = 0
	r, err := Search(res.Needle, opts)
	if err != nil || r.Stats.Decoded != 0 {
		t.Fatalf("%v %+v", err, r.Stats)
	}
	after := loadManifest(dir)
	if after.Gen != before.Gen {
		t.Errorf("settling changed the generation %x → %x", before.Gen, after.Gen)
	}
	if len(after.Entries) != len(before.Entries) {
		t.Fatalf("%d entries, had %d", len(after.Entries), len(before.Entries))
	}
	for p, e := range after.Entries {
		if e.Racy {
			t.Errorf("%s: still racy", p)
		}
		if !sameEntry(e, before.Entries[p]) {
			t.Errorf("%s: settling changed the entry: %+v, was %+v", p, e, before.Entries[p])
		}
	}
}

// TestIndexForgetsDeletedFiles: a session file deleted since the index
// was written leaves the manifest at the next search, and is not answered.
func TestIndexForgetsDeletedFiles(t *testing.T) {
	res := genCorpus(t, 1<<20, 6)
	opts := indexOpts(t, sourcesFor(res.Layout))
	dir := filepath.Join(opts.CacheDir, indexDirName)
	first, err := Search(res.Needle, opts)
	if err != nil || len(first.Sessions) == 0 {
		t.Fatalf("%v %v", first.Sessions, err)
	}
	gone := first.Sessions[0].Session.Path
	if loadManifest(dir).Entries[gone] == nil {
		t.Fatalf("%s is not in the index", gone)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	after, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range after.Sessions {
		if s.Session.Path == gone {
			t.Errorf("the deleted %s is still answered", gone)
		}
	}
	if len(after.Sessions) != len(first.Sessions)-1 {
		t.Errorf("%d sessions after deleting one of %d", len(after.Sessions), len(first.Sessions))
	}
	if e := loadManifest(dir).Entries[gone]; e != nil {
		t.Errorf("the manifest still has the deleted %s: %+v", gone, e)
	}
}
