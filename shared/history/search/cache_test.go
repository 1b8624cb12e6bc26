package search

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
)

func sampleCache() *cacheFile {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	return &cacheFile{Query: "corpus-needle-1", Limit: 5, Files: map[string]*fileAnswer{
		"/a/none.jsonl": {Key: filekey.Key{Size: 10, MTime: 20, Tail: 30}},
		"/a/neg.jsonl":  {Key: filekey.Key{Size: 0, MTime: -5, Tail: 1<<64 - 1}},
		"/a/err.jsonl":  {Key: filekey.Key{Size: 7, MTime: 8, Tail: 9}, Err: "/a/err.jsonl: refused: not a transcript"},
		"/a/fork.jsonl": {Key: filekey.Key{Size: 1, MTime: 2, Tail: 3}, Deps: map[string]filekey.Key{"/a/parent.jsonl": {Size: 4, MTime: 5, Tail: 6}}},
		"/a/hits.jsonl": {
			Key:   filekey.Key{Size: 1 << 40, MTime: at.UnixNano(), Tail: 42},
			Count: 12,
			Hits: &hits{
				Session: history.Session{Harness: "pi", ID: "x", Path: "/a/hits.jsonl", Title: "t", Updated: at, Size: 1 << 40},
				Entries: []history.Entry{{Seq: 3, Window: "3", Role: "user", Kind: "message", Time: at, Snippet: "say corpus-needle-1 – ünïcode"}},
			},
		},
	}}
}

func TestCacheRoundTrip(t *testing.T) {
	c := sampleCache()
	data, err := c.encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeCache(data, c.Query, c.Limit)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Files, c.Files) {
		for p, a := range c.Files {
			if !reflect.DeepEqual(got.Files[p], a) {
				t.Errorf("%s: got %+v, want %+v", p, got.Files[p], a)
			}
		}
		t.Fatalf("the decoded cache differs")
	}
	// Through the file system, as Search uses it.
	dir := t.TempDir()
	if err := c.save(dir); err != nil {
		t.Fatal(err)
	}
	if l := loadCache(dir, c.Query, c.Limit); len(l.Files) != len(c.Files) {
		t.Fatalf("loadCache read %d answers, saved %d", len(l.Files), len(c.Files))
	}
}

// TestCacheRejectsDamage checks that a torn, damaged or foreign cache file
// is never read as answers: every truncation, every single-bit flip, and a
// file written for another query or limit.
func TestCacheRejectsDamage(t *testing.T) {
	c := sampleCache()
	data, err := c.encode()
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n++ {
		if _, err := decodeCache(data[:n], c.Query, c.Limit); err == nil {
			t.Fatalf("a file cut to %d of %d bytes was accepted", n, len(data))
		}
	}
	for i := 0; i < len(data); i++ {
		for bit := 0; bit < 8; bit++ {
			d := append([]byte(nil), data...)
			d[i] ^= 1 << bit
			if _, err := decodeCache(d, c.Query, c.Limit); err == nil {
				t.Fatalf("a flip of bit %d of byte %d was accepted", bit, i)
			}
		}
	}
	for _, other := range []struct {
		q string
		l int
	}{{"corpus-needle-2", 5}, {c.Query, 6}} {
		if _, err := decodeCache(data, other.q, other.l); err == nil {
			t.Errorf("a cache for %q limit %d was read for %q limit %d", c.Query, c.Limit, other.q, other.l)
		}
	}
	// The gob file of the first format, or anything else, is no cache.
	dir := t.TempDir()
	if err := os.WriteFile(cachePath(dir, c.Query, c.Limit), []byte("\x3f\xff\x81\x03\x01\x01\tcacheFile"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l := loadCache(dir, c.Query, c.Limit); len(l.Files) != 0 {
		t.Errorf("a foreign file gave %d answers", len(l.Files))
	}
}

// TestScanHashesTheTail checks that the tail hash the scan takes from its
// last chunk is the one a separate read of the tail gives, for sizes
// around the tail and chunk lengths.
func TestScanHashesTheTail(t *testing.T) {
	dir := t.TempDir()
	p := newPlan("zzz-absent", nil)
	for _, chunk := range []int{64, 4096, filekey.TailBytes + 100, chunkBytes} {
		for _, size := range []int{0, 1, 63, 64, 65, filekey.TailBytes - 1, filekey.TailBytes, filekey.TailBytes + 1, filekey.TailBytes + 99, 3*filekey.TailBytes + 7, chunkBytes + 5} {
			path := filepath.Join(dir, fmt.Sprintf("f-%d", size))
			text := strings.Repeat("abcdefghij\n", size/11+1)[:size]
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			f, st, err := filekey.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			w := &worker{buf: make([]byte, chunk)}
			_, _, tail, ok, err := w.scan(f, st.Size, newScanner(p), true, nil)
			want, werr := filekey.TailHashAt(f, st.Size, make([]byte, filekey.TailBytes))
			f.Close()
			if err != nil || werr != nil {
				t.Fatal(err, werr)
			}
			// The scan may leave the tail to a separate read (a last
			// chunk shorter than the tail), never hash it wrongly.
			if ok && tail != want {
				t.Errorf("chunk %d, size %d: the scan hashed the tail as %x, a read gives %x", chunk, size, tail, want)
			}
			if !ok && chunk >= size {
				t.Errorf("chunk %d, size %d: one chunk held the file but the tail was not hashed", chunk, size)
			}
		}
	}
}
