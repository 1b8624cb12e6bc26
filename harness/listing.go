package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
)

// A session listing describes every transcript from its head and tail (up
// to a few hundred KiB each), which for thousands of sessions costs seconds.
// A transcript only ever grows at its end, so a description stays true while
// the file is unchanged: DescriptionCache keeps one per file under the file's
// key (package filekey, the search index's proof of an unchanged file), and
// describes again every file whose key moved. A settled key is proven by a
// stat alone; a racy one (taken just after the file changed) by its tail
// hash as well, until a listing finds it settled.

// Describer describes one session file; ok=false means the file is not a
// session of the harness (it is skipped, not an error).
type Describer func(path string) (s history.Session, ok bool, err error)

// Describe describes files, newest first, through cache when it is not nil.
// A file that fails to describe is reported in the joined error and the
// others are still listed.
func Describe(files []string, describe Describer, cache *DescriptionCache) ([]history.Session, error) {
	out := make([]history.Session, len(files))
	keep := make([]bool, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dir filekey.Dir // files come in walk order: mostly one directory after another
			defer dir.Close()
			for i := range next {
				out[i], keep[i], errs[i] = cache.describe(&dir, files[i], describe)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	// Sorted by index, not by moving the sessions themselves: a session
	// is some hundred bytes, and a stable sort moves each many times.
	order := make([]int32, 0, len(out))
	for i := range out {
		if keep[i] {
			order = append(order, int32(i))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return out[b].Updated.Compare(out[a].Updated) })
	sessions := make([]history.Session, len(order))
	for i, j := range order {
		sessions[i] = out[j]
	}
	return sessions, errors.Join(errs...)
}

// Paths returns the sessions' paths, in order: what Describe describes of
// the files a walk found.
func Paths(sessions []history.Session) []string {
	out := make([]string, len(sessions))
	for i, s := range sessions {
		out[i] = s.Path
	}
	return out
}

// descriptionFormat changes whenever a cached description's meaning or the
// file's layout does; the notesoup version is part of the key too, since a
// decoder's reading of a head may change with it. Format 2: titles are
// masked before they are cut (history.Title), so no format 1 description,
// whose title may hold a secret cut short, is served or kept. Format 3: the
// binary layout below, keyed by filekey.Key.
const descriptionFormat = 3

// cachedDescription is one file's description and the key it holds for.
type cachedDescription struct {
	Key filekey.Key
	// Racy: the key was taken too soon after the file's last change for a
	// stat alone to prove it (filekey.Racy); the tail is read too.
	Racy    bool
	OK      bool // false: not a session of this harness
	Session history.Session
}

// DescriptionCache keeps session descriptions across processes, in one file
// per harness. It is safe for concurrent use; a nil cache describes every
// file.
type DescriptionCache struct {
	path string
	load sync.Once

	mu    sync.Mutex
	files map[string]*cachedDescription
	dirty bool
}

// NewDescriptionCache returns the cache kept at path, read on its first use
// (most processes that build a harness never list its sessions).
func NewDescriptionCache(path string) *DescriptionCache {
	return &DescriptionCache{path: path}
}

// maxCacheBytes bounds the cache file read: far above the few hundred
// bytes a description takes times any plausible number of sessions; a
// larger file is not this cache's and reads as empty.
const maxCacheBytes = 1 << 30

// loaded reads the cache file once. A missing, unreadable, torn or foreign
// file is an empty cache: descriptions are recomputed, never guessed.
func (c *DescriptionCache) loaded() {
	c.load.Do(func() {
		c.files = map[string]*cachedDescription{}
		data, err := rawread.ReadAll(c.path, maxCacheBytes)
		if err != nil {
			return
		}
		if files, err := decodeDescriptions(data); err == nil {
			c.files = files
		}
	})
}

// keyOf is the key of the file at path, its tail hash included.
func keyOf(dir *filekey.Dir, path string) (filekey.Key, error) {
	buf := tailBufs.Get().(*[filekey.TailBytes]byte)
	defer tailBufs.Put(buf)
	return dir.Key(path, buf[:])
}

// tailBufs are the buffers tail hashes are read into, one per describing
// goroutine at a time.
var tailBufs = sync.Pool{New: func() any { return new([filekey.TailBytes]byte) }}

// describe describes path, or answers from the cache when its key proves
// the file unchanged; dir is the calling goroutine's directory handle.
func (c *DescriptionCache) describe(dir *filekey.Dir, path string, describe Describer) (history.Session, bool, error) {
	if c == nil {
		return describe(path)
	}
	c.loaded()
	// The clock before any key is taken: a key is racy by it (filekey.Racy).
	now := time.Now().UnixNano()
	c.mu.Lock()
	d := c.files[path]
	c.mu.Unlock()
	if d != nil && !d.Racy {
		if k, ok := dir.Lstat(path); ok && filekey.StatProves(d.Key, d.Racy, k) {
			return d.Session, d.OK, nil
		}
	}
	key, err := keyOf(dir, path)
	if err != nil {
		// No key, no caching: the describer reports what is wrong with
		// the file, if anything.
		return describe(path)
	}
	racy := filekey.Racy(key, now)
	if d != nil && d.Key == key {
		if d.Racy && !racy {
			// Proven by its tail when no longer racy: settled, so the
			// next listing proves it by a stat alone.
			c.mu.Lock()
			c.files[path] = &cachedDescription{Key: d.Key, OK: d.OK, Session: d.Session}
			c.dirty = true
			c.mu.Unlock()
		}
		return d.Session, d.OK, nil
	}
	s, ok, err := describe(path)
	if err != nil {
		return s, ok, err
	}
	// The key was taken before the read: a write during it moves the key
	// the next listing sees (and leaves this one racy), so this
	// description is never kept past a change.
	c.mu.Lock()
	c.files[path] = &cachedDescription{Key: key, Racy: racy, OK: ok, Session: s}
	c.dirty = true
	c.mu.Unlock()
	return s, ok, nil
}

// Forget drops the descriptions of files under roots that are not in seen
// (deleted sessions), so the cache does not grow without bound.
func (c *DescriptionCache) Forget(roots []string, seen []string) {
	if c == nil {
		return
	}
	c.loaded()
	keep := make(map[string]bool, len(seen))
	for _, p := range seen {
		keep[p] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.files {
		if !keep[p] && underAny(p, roots) {
			delete(c.files, p)
			c.dirty = true
		}
	}
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../") {
			return true
		}
	}
	return false
}

// Save writes the cache when it changed, atomically. Two processes saving at
// once each write a whole file and the last one wins; a lost description is
// only recomputed. There is no fsync (atomicfile.Options.NoSync): a file torn
// by a crash fails its checksum and reads as an empty cache, which costs one
// cold listing, never a wrong description.
func (c *DescriptionCache) Save() error {
	if c == nil {
		return nil
	}
	c.loaded()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return nil
	}
	data := encodeDescriptions(c.files)
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("session description cache: %w", err)
	}
	if err := atomicfile.Write(c.path, data, atomicfile.Options{NoSync: true}); err != nil {
		return fmt.Errorf("session description cache: %w", err)
	}
	c.dirty = false
	return nil
}
