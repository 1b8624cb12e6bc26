package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/version"
)

// A session listing describes every transcript from its head and tail (up
// to a few hundred KiB each), which for thousands of sessions costs seconds.
// A transcript only ever grows at its end, so a description stays true while
// the file is unchanged: DescriptionCache keeps one per file, keyed on what
// proves that without reading it (size, modification time, inode and change
// time, whose change time no one can set back), and describes again every
// file whose key moved.

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
			for i := range next {
				out[i], keep[i], errs[i] = cache.describe(files[i], describe)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	sessions := out[:0]
	for i, s := range out {
		if keep[i] {
			sessions = append(sessions, s)
		}
	}
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Updated.After(sessions[j].Updated) })
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

// descriptionFormat changes whenever a cached description's meaning does;
// the notesoup version is part of the key too, since a decoder's reading of
// a head may change with it. Format 2: titles are masked before they are
// cut (history.Title), so no format 1 description, whose title may hold a
// secret cut short, is served or kept.
const descriptionFormat = 2

// fileStamp is what proves a file unchanged without reading it.
type fileStamp struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"` // UnixNano
	CTime int64  `json:"ctime"` // UnixNano: set by the kernel on every change
	Inode uint64 `json:"ino"`
}

// cachedDescription is one file's description and the stamp it holds for.
type cachedDescription struct {
	Stamp   fileStamp       `json:"stamp"`
	OK      bool            `json:"ok"` // false: not a session of this harness
	Session history.Session `json:"session"`
}

// descriptionFile is a cache file's content.
type descriptionFile struct {
	Format  int                           `json:"format"`
	Version string                        `json:"version"`
	Files   map[string]*cachedDescription `json:"files"`
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

// loaded reads the cache file once. A missing, unreadable or foreign file is
// an empty cache: descriptions are recomputed, never guessed.
func (c *DescriptionCache) loaded() {
	c.load.Do(func() {
		c.files = map[string]*cachedDescription{}
		data, err := os.ReadFile(c.path)
		if err != nil {
			return
		}
		var f descriptionFile
		if json.Unmarshal(data, &f) == nil && f.Format == descriptionFormat && f.Version == version.Version && f.Files != nil {
			c.files = f.Files
		}
	})
}

func (c *DescriptionCache) describe(path string, describe Describer) (history.Session, bool, error) {
	if c == nil {
		return describe(path)
	}
	c.loaded()
	stamp, stable := stampOf(path)
	if stable {
		c.mu.Lock()
		d := c.files[path]
		c.mu.Unlock()
		if d != nil && d.Stamp == stamp {
			return d.Session, d.OK, nil
		}
	}
	s, ok, err := describe(path)
	if err != nil || !stable {
		return s, ok, err
	}
	// The stamp was taken before the read: a write during it moves the
	// stamp the next listing sees, so this description is never kept past
	// a change.
	c.mu.Lock()
	c.files[path] = &cachedDescription{Stamp: stamp, OK: ok, Session: s}
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
// only recomputed.
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
	data, err := json.Marshal(descriptionFile{Format: descriptionFormat, Version: version.Version, Files: c.files})
	if err != nil {
		return fmt.Errorf("session description cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("session description cache: %w", err)
	}
	if err := atomicfile.Write(c.path, data, atomicfile.Options{}); err != nil {
		return fmt.Errorf("session description cache: %w", err)
	}
	c.dirty = false
	return nil
}
