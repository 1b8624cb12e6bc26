package search

import (
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// Cache geometry.
const (
	// tailBytes is how much of a file's end is hashed into its key. A
	// transcript grows at the end, so its tail changes with every write
	// even when a rewrite keeps the size and the clock is coarse.
	tailBytes = 4 << 10
	// cacheFormat changes whenever the cached answer's meaning does (a
	// decoder's semantics, the entry shape), so old answers are dropped.
	cacheFormat = 1
)

// FileKey is what proves a file unchanged since an answer was computed:
// its size, modification time and a hash of its last tailBytes.
type FileKey struct {
	Size  int64
	MTime int64 // UnixNano
	Tail  [16]byte
}

// fileAnswer is a cached answer for one file and one query.
type fileAnswer struct {
	Key FileKey
	// Deps are the files whose rows this session inherits (a Codex fork's
	// parents), with their keys: the answer holds only while they are
	// unchanged too.
	Deps    map[string]FileKey
	Session history.Session
	Count   int
	Entries []history.Entry
	// Err is a decode refusal, cached like an answer: the same bytes are
	// refused the same way.
	Err string
}

// cacheFile is one query's answers, keyed by path.
type cacheFile struct {
	Format  int
	Version string
	Query   string
	Limit   int
	Files   map[string]*fileAnswer
}

// cachePath names the cache file of a query (hashed: queries may hold any
// character).
func cachePath(dir, query string, limit int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%d\x00%s", cacheFormat, limit, query)))
	return filepath.Join(dir, "q-"+hex.EncodeToString(h[:12])+".gob")
}

// loadCache reads a query's answers; a missing, unreadable or foreign file
// is an empty cache (the answers are recomputed, never guessed).
func loadCache(dir, query string, limit int) *cacheFile {
	empty := &cacheFile{Format: cacheFormat, Version: version.Version, Query: query, Limit: limit, Files: map[string]*fileAnswer{}}
	if dir == "" {
		return empty
	}
	f, err := os.Open(cachePath(dir, query, limit))
	if err != nil {
		return empty
	}
	defer f.Close()
	var c cacheFile
	if err := gob.NewDecoder(f).Decode(&c); err != nil || c.Format != cacheFormat || c.Version != version.Version || c.Query != query || c.Limit != limit || c.Files == nil {
		return empty
	}
	return &c
}

// save writes the cache atomically: a temp file in the same directory,
// fsynced, renamed over the old one. Two processes saving at once each
// write a complete file and the last rename wins; a lost answer is only
// recomputed, never served stale, because every answer carries its key.
func (c *cacheFile) save(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".q-*.tmp")
	if err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := gob.NewEncoder(tmp).Encode(c); err != nil {
		tmp.Close()
		return fmt.Errorf("search cache: encode: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("search cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), cachePath(dir, c.Query, c.Limit)); err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	return nil
}

// statKey computes a file's key from its stat and a read of its tail.
func statKey(path string) (FileKey, error) {
	k, _, err := pathKey(path, make([]byte, tailBytes))
	return k, err
}

// keyOf reads the tail of an open file whose stat is fi.
func keyOf(f io.ReaderAt, fi fs.FileInfo) (FileKey, error) {
	k := FileKey{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	n := int64(tailBytes)
	if n > k.Size {
		n = k.Size
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, k.Size-n); err != nil && !errors.Is(err, io.EOF) {
		return FileKey{}, err
	}
	k.Tail = tailHash(buf)
	return k, nil
}

func tailHash(b []byte) [16]byte {
	h := sha256.Sum256(b)
	var out [16]byte
	copy(out[:], h[:16])
	return out
}

// fresh reports whether a cached answer still holds: the file and every
// file it depends on have the keys it was computed with.
func (a *fileAnswer) fresh(key FileKey, keyFor func(string) (FileKey, error)) bool {
	if a == nil || a.Key != key {
		return false
	}
	for p, want := range a.Deps {
		got, err := keyFor(p)
		if err != nil || got != want {
			return false
		}
	}
	return true
}
