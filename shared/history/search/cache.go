package search

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/shared/bincodec"
	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// Cache geometry.
const (
	// cacheFormat changes whenever the cached answer's meaning or the
	// file's layout does (a decoder's semantics, the entry shape, the
	// tail hash), so old answers are dropped. Format 3: snippets are
	// masked (see the package doc) and keys hold the inode and change
	// time.
	cacheFormat = 3
)

// fileAnswer is a cached answer for one file and one query.
type fileAnswer struct {
	Key filekey.Key
	// Deps are the files whose events this session inherits (a fork's
	// parents), with their keys: the answer holds only while they are
	// unchanged too.
	Deps  map[string]filekey.Key
	Count int
	// Hits are the session and its newest matching entries, for answers
	// with matches (the only ones shown); nil for the others, most of a
	// cache, which then costs a key and little else to load.
	Hits *hits
	// Err is a decode refusal, cached like an answer: the same bytes are
	// refused the same way.
	Err string
	// ent is the index manifest's entry this key stands for (Options.Index
	// only; never written to an answer cache file).
	ent *entry
}

// cacheFile is one query's answers, keyed by path.
type cacheFile struct {
	Query string
	Limit int
	Files map[string]*fileAnswer
}

// cachePath names the cache file of a query (hashed: queries may hold any
// character). The "m-" prefix marks files of masked answers (format 3 on);
// see dropUnmasked.
func cachePath(dir, query string, limit int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%d\x00%s", cacheFormat, limit, query)))
	return filepath.Join(dir, "m-"+hex.EncodeToString(h[:12])+".bin")
}

// queryHash stands for the query in a cache file: the query may be a
// secret's text (a search for it finds nothing), and no cache keeps one.
func queryHash(query string) string {
	h := sha256.Sum256([]byte(query))
	return string(h[:])
}

// dropUnmasked removes the cache files of builds before format 3 ("q-*"),
// whose snippets were stored unmasked: no secret may stay in a cache
// because an older build wrote it. It runs only when a search writes the
// cache anyway; each such file goes the first time.
func dropUnmasked(dir string) {
	old, _ := filepath.Glob(filepath.Join(dir, "q-*.bin"))
	for _, p := range old {
		os.Remove(p)
	}
}

// fresh reports whether a cached answer still holds: the file and every
// file it depends on have the keys it was computed with.
func (a *fileAnswer) fresh(key filekey.Key, keyFor func(string) (filekey.Key, error)) bool {
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

// The cache file is read by every search, so it is a flat binary layout
// read in one call, not gob (whose decoding cost more than the rest of a
// warm search's user time). Layout (its pieces are shared/bincodec's),
// integers as (u)varints:
//
//	magic "nsq\x00", format, version string, query hash string, limit, n,
//	n × entry, CRC-32C of everything before it (4 bytes, little endian)
//	entry: path string, key, flags (1 error, 2 matches, 4 deps),
//	  [error string], [deps: n × (path string, key)],
//	  [count, JSON of {session, entries}]
//	key: size, mtime, ctime, inode, tail (8 bytes, little endian)
//	string: length, bytes
//
// Only answers with matches keep their session and entries: the rest are
// a key and nothing else.
const cacheMagic = "nsq\x00"

const (
	flagErr = 1 << iota
	flagHits
	flagDeps
	// flagRacy (index manifest only): the key was taken too soon after
	// the file's last change for a stat alone to prove it unchanged.
	flagRacy
)

// hits is what an answer with matches shows, kept as JSON in the cache
// file: few answers have it.
type hits struct {
	Session history.Session `json:"session"`
	Entries []history.Entry `json:"entries"`
}

// loadCache reads a query's answers; a missing, unreadable, torn or
// foreign file is an empty cache (the answers are recomputed, never
// guessed).
func loadCache(dir, query string, limit int) *cacheFile {
	empty := &cacheFile{Query: query, Limit: limit, Files: map[string]*fileAnswer{}}
	if dir == "" {
		return empty
	}
	data, err := os.ReadFile(cachePath(dir, query, limit))
	if err != nil {
		return empty
	}
	c, err := decodeCache(data, query, limit)
	if err != nil {
		return empty
	}
	return c
}

// errCacheFormat is any cache file this build did not write.
var errCacheFormat = errors.New("search cache: not this build's format")

// decodeCache parses a cache file written by encode for query and limit.
func decodeCache(data []byte, query string, limit int) (*cacheFile, error) {
	payload, ok := bincodec.Verify(data, cacheMagic)
	if !ok {
		return nil, errCacheFormat // torn, damaged or foreign
	}
	// One string for the whole file: paths and texts are slices of it,
	// not an allocation each. It aliases data, which nothing writes
	// after this: a copy would touch as many fresh pages again, and a
	// fresh page costs a fault (14 µs each on the VMs measured, a few ms
	// per MB, a good part of a warm search).
	r := bincodec.NewReader(payload)
	if r.Uint() != cacheFormat || r.Str() != version.Version || r.Str() != queryHash(query) || r.Uint() != uint64(limit) {
		return nil, errCacheFormat
	}
	n := r.Uint()
	if r.Err() != nil || n > uint64(r.Len()) {
		return nil, errCacheFormat
	}
	c := &cacheFile{Query: query, Limit: limit, Files: make(map[string]*fileAnswer, n)}
	answers := make([]fileAnswer, n) // one allocation for all
	for i := range answers {
		a := &answers[i]
		path := r.Str()
		a.Key = r.Key()
		flags := r.Byte()
		if flags&flagErr != 0 {
			a.Err = r.Str()
		}
		if flags&flagDeps != 0 {
			nd := r.Uint()
			if nd > uint64(r.Len()) {
				return nil, errCacheFormat
			}
			a.Deps = make(map[string]filekey.Key, nd)
			for range nd {
				p := r.Str()
				a.Deps[p] = r.Key()
			}
		}
		if flags&flagHits != 0 {
			a.Count = int(r.Uint())
			var h hits
			if err := json.Unmarshal([]byte(r.Str()), &h); err != nil {
				return nil, errCacheFormat
			}
			a.Hits = &h
		}
		if r.Err() != nil {
			return nil, errCacheFormat
		}
		c.Files[path] = a
	}
	if r.Err() != nil || r.Len() != 0 {
		return nil, errCacheFormat
	}
	return c, nil
}

// encode lays the cache out as decodeCache reads it.
func (c *cacheFile) encode() ([]byte, error) {
	var out bytes.Buffer
	err := c.encodeTo(&out)
	return out.Bytes(), err
}

// encodeTo writes the cache to w through a 32 KiB buffer: building the
// whole file in memory first would touch as many fresh pages as the file
// is long, twice over as it grows (see decodeCache on fresh pages).
func (c *cacheFile) encodeTo(w io.Writer) error {
	crc := bincodec.NewHash()
	b := make([]byte, 0, 40<<10)
	flush := func(force bool) error {
		if len(b) < 32<<10 && !force {
			return nil
		}
		crc.Write(b)
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	b = append(b, cacheMagic...)
	b = binary.AppendUvarint(b, cacheFormat)
	b = bincodec.AppendString(b, version.Version)
	b = bincodec.AppendString(b, queryHash(c.Query))
	b = binary.AppendUvarint(b, uint64(c.Limit))
	b = binary.AppendUvarint(b, uint64(len(c.Files)))
	for path, a := range c.Files {
		b = bincodec.AppendString(b, path)
		b = bincodec.AppendKey(b, a.Key)
		var flags byte
		if a.Err != "" {
			flags |= flagErr
		}
		if a.Count > 0 {
			flags |= flagHits
		}
		if len(a.Deps) > 0 {
			flags |= flagDeps
		}
		b = append(b, flags)
		if a.Err != "" {
			b = bincodec.AppendString(b, a.Err)
		}
		if len(a.Deps) > 0 {
			b = binary.AppendUvarint(b, uint64(len(a.Deps)))
			for p, k := range a.Deps {
				b = bincodec.AppendString(b, p)
				b = bincodec.AppendKey(b, k)
			}
		}
		if a.Count > 0 {
			b = binary.AppendUvarint(b, uint64(a.Count))
			var h hits
			if a.Hits != nil {
				h = *a.Hits
			}
			j, err := json.Marshal(h)
			if err != nil {
				return fmt.Errorf("search cache: encode %s: %w", path, err)
			}
			b = bincodec.AppendString(b, string(j))
		}
		if err := flush(false); err != nil {
			return err
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// save writes the cache atomically: a temp file in the same directory,
// renamed over the old one. Two processes saving at once each write a
// complete file and the last rename wins; a lost answer is only recomputed,
// never served stale, because every answer carries its key. There is no
// fsync: a file torn by a crash fails its checksum and reads as an empty
// cache, which costs one cold search, not a wrong answer.
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
	if err := c.encodeTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("search cache: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), cachePath(dir, c.Query, c.Limit)); err != nil {
		return fmt.Errorf("search cache: %w", err)
	}
	dropUnmasked(dir)
	return nil
}
