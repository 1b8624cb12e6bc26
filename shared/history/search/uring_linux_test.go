package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
)

// TestRingKeysMatchSystemCalls checks the io_uring batch against the
// plain system calls: the same key for every file it proves, nothing for
// a file that is missing, changed in size or time, or a directory.
func TestRingKeysMatchSystemCalls(t *testing.T) {
	r := newURing(2 * ringBatch)
	if r == nil {
		t.Skip("io_uring is not available here; the system calls answer every file")
	}
	defer r.close()
	dir := t.TempDir()
	sizes := []int{0, 1, 100, filekey.TailBytes - 1, filekey.TailBytes, filekey.TailBytes + 1, 3*filekey.TailBytes + 5}
	var paths []string
	want := map[int]filekey.Key{}
	for i, n := range sizes {
		p := filepath.Join(dir, strings.Repeat("f", i+1)+".jsonl")
		if err := os.WriteFile(p, []byte(strings.Repeat("0123456789abcdef", n/16+1)[:n]), 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := filekey.Of(p)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		want[i] = k
	}
	// A file whose cached size differs, one whose time differs, a
	// missing one and a directory: none may be proven.
	stale := len(paths)
	paths = append(paths, paths[2])
	want[stale] = filekey.Key{Size: want[2].Size + 1, MTime: want[2].MTime}
	old := len(paths)
	paths = append(paths, paths[3])
	want[old] = filekey.Key{Size: want[3].Size, MTime: want[3].MTime - int64(time.Second)}
	missing := len(paths)
	paths = append(paths, filepath.Join(dir, "gone.jsonl"))
	want[missing] = filekey.Key{}
	sub := len(paths)
	paths = append(paths, dir)
	want[sub] = filekey.Key{}
	for round := 0; round < 3; round++ { // the ring is reused
		ks := make([]ringKey, len(paths))
		// Odd files by name relative to their directory, as
		// proveBatch gives them, even ones by their whole path.
		var p prover
		dirfds := make([]int32, len(paths))
		names := make([]string, len(paths))
		for i := range paths {
			dirfds[i], names[i] = atFDCWD, paths[i]
			if i%2 == 1 {
				dirfds[i], names[i] = p.relative(paths[i])
			}
		}
		r.ringKeys(dirfds, names, ks, func(i int) (filekey.Key, bool) { return want[i], true })
		p.closeDirs()
		if r.broken {
			t.Fatal("the ring broke")
		}
		for i := range paths {
			switch {
			case i == stale || i == old || i == missing || i == sub:
				if ks[i].ok {
					t.Errorf("%s (case %d): proven although it must not be: %+v", paths[i], i, ks[i].key)
				}
			case !ks[i].ok:
				t.Errorf("%s: not proven", paths[i])
			case ks[i].key != want[i]:
				t.Errorf("%s: ring key %+v, system calls %+v", paths[i], ks[i].key, want[i])
			}
		}
	}
	// Every descriptor the ring opened was closed: the next open gets a
	// low number again.
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fd := f.Fd(); fd > 20 {
		t.Errorf("a fresh open got descriptor %d: the ring leaks descriptors", fd)
	}
}

// TestSearchWithoutRing answers warm searches by system calls alone, as
// where io_uring is refused, and checks they agree with the ring's.
func TestSearchWithoutRing(t *testing.T) {
	res := genCorpus(t, 2<<20, 12)
	opts := Options{Sources: sourcesFor(res.Layout), CacheDir: t.TempDir()}
	cold, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	withRing, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	was := uringDisabled.Swap(true)
	defer uringDisabled.Store(was)
	without, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Result{withRing, without} {
		if r.Stats.Cached != r.Stats.Files || fmt.Sprint(countsOf(r)) != fmt.Sprint(countsOf(cold)) {
			t.Errorf("warm search: %+v %v, cold %v", r.Stats, countsOf(r), countsOf(cold))
		}
	}
}
