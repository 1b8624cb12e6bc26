// Package vault keeps notesoup's own verbatim copy of every harness's
// transcripts, so that a session the harness deletes (Claude Code's
// cleanupPeriodDays, Gemini CLI's 30 days) can still be listed, read,
// searched and written back.
//
// One job: the compressed, append-aware copy. A transcript is copied into
// the vault under its harness and its path relative to the root it lies
// under (so a restore knows where it goes); each sync appends one zstd
// frame holding only the bytes the file gained since the last sync, and a
// file rewritten in place (shorter, or different before its old end)
// starts a new generation, the old one kept. Which files there are is the
// caller's to say (the service lists them through the harnesses): nothing
// here knows a harness's name or a transcript format.
//
// On disk, under the vault folder (0700, files 0600):
//
//	lock                       the sync lock (internal/filelock)
//	manifest                   the committed state, replaced atomically
//	data/<kk>/<key>.<gen>.zst  one file per transcript and generation: zstd frames
//	cache/                     decompressed copies of gone originals (Materialize)
//
// Crash safety: a sync appends frames past the committed length of a data
// file, fsyncs it, and only then replaces the manifest (shared/atomicfile).
// A reader trusts the manifest's lengths alone, so bytes a killed sync left
// past them are never read, and the next sync cuts them off before it
// appends. Syncs exclude each other with a lock (bounded wait); readers
// take none.
package vault

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// Names inside the vault folder.
const (
	lockName     = "lock"
	manifestName = "manifest"
	dataDir      = "data"
	// CacheDir is the folder under the vault that Materialize writes to.
	CacheDir = "cache"
)

// manifestVersion is the manifest's format; a vault written by a newer
// format is refused rather than misread.
const manifestVersion = 1

// maxManifestBytes bounds the manifest read: about 300 bytes per
// transcript, so a million transcripts fit.
const maxManifestBytes = 512 << 20

// Vault is one vault folder. It is safe for concurrent use, and several
// processes may use one folder at once.
type Vault struct {
	dir string
}

// Open returns the vault in dir, creating the folder (0700) when missing
// and making it private when it is not.
func Open(dir string) (*Vault, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("vault folder %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("vault folder %s: %w", abs, err)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, fmt.Errorf("vault folder %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("vault folder %s is not a folder; move it away", abs)
	}
	if fi.Mode().Perm() != 0o700 {
		// The vault holds transcripts verbatim, secrets included.
		if err := os.Chmod(abs, 0o700); err != nil {
			return nil, fmt.Errorf("vault folder %s: make it private (0700): %w", abs, err)
		}
	}
	return &Vault{dir: abs}, nil
}

// Dir returns the vault folder.
func (v *Vault) Dir() string { return v.dir }

// Generation is one past generation of a transcript: what the file held
// before it was rewritten in place. Its data file is kept.
type Generation struct {
	Gen  int
	Size int64
	CLen int64
}

// Entry is one transcript the vault holds.
type Entry struct {
	// Harness names the harness that wrote the file, as in selectors.
	Harness string
	// ID is the session id the harness listed the file under.
	ID string
	// Root is the absolute session root the file lies under; Rel is the
	// file's path relative to it (slash-separated as the OS writes it).
	Root string
	Rel  string
	// Gen is the current generation; Size its bytes copied so far, CLen
	// the committed length of its data file.
	Gen  int
	Size int64
	CLen int64
	// The original's stat when it was last copied: an unchanged stat means
	// nothing to copy, without reading the file.
	MTime int64
	Ino   uint64
	// Head and Tail hash the first and the last 4 KiB of the Size bytes
	// copied: a file that grew past them with both unchanged was appended
	// to; otherwise it was rewritten.
	Head string
	Tail string
	// State is the SHA-256 state over all Size bytes (hash.Hash's
	// binary marshaling, base64): appends extend it without rereading,
	// and a file seen with its old size but a new time is read whole and
	// checked against it, so a same-size rewrite is not taken for a touch.
	State string
	// Older lists the earlier generations, oldest first.
	Older []Generation
	// Synced is when bytes were last copied (Unix seconds).
	Synced int64
}

// Path returns the original's absolute path.
func (e Entry) Path() string { return filepath.Join(e.Root, filepath.FromSlash(e.Rel)) }

// Key returns the entry's identity: harness and original path.
func (e Entry) Key() string { return entryKey(e.Harness, e.Path()) }

func entryKey(harness, path string) string { return harness + "\x00" + path }

// dataFile returns the data file of generation gen of the entry.
func (v *Vault) dataFile(e Entry, gen int) string {
	sum := sha256.Sum256([]byte(e.Harness + "\x00" + e.Root + "\x00" + e.Rel))
	k := hex.EncodeToString(sum[:16])
	return filepath.Join(v.dir, dataDir, k[:2], fmt.Sprintf("%s.%d.zst", k, gen))
}

// load reads the committed manifest; a vault never synced has none.
func (v *Vault) load() (map[string]*Entry, error) {
	path := filepath.Join(v.dir, manifestName)
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]*Entry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("vault manifest %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("vault manifest %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("vault manifest %s is not a regular file; move it away", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("vault manifest %s: %w", path, err)
	}
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("vault manifest %s is over %d MiB; it is not one notesoup wrote", path, maxManifestBytes>>20)
	}
	entries, err := decodeManifest(data)
	if err != nil {
		return nil, fmt.Errorf("vault manifest %s is damaged (%v); move the vault folder away and sync again", path, err)
	}
	out := make(map[string]*Entry, len(entries))
	for i := range entries {
		e := &entries[i]
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("vault manifest %s: %w; move the vault folder away and sync again", path, err)
		}
		out[e.Key()] = e
	}
	return out, nil
}

// check refuses an entry whose names could lead out of the vault or the
// root it names.
func (e *Entry) check() error {
	switch {
	case e.Harness == "" || strings.ContainsAny(e.Harness, `/\`+"\x00") || e.Harness == "." || e.Harness == "..":
		return fmt.Errorf("entry with harness %q", e.Harness)
	case !filepath.IsAbs(e.Root) || filepath.Clean(e.Root) != e.Root:
		return fmt.Errorf("entry with root %q", e.Root)
	case !filepath.IsLocal(filepath.FromSlash(e.Rel)):
		return fmt.Errorf("entry with path %q under its root", e.Rel)
	case e.Gen < 1 || e.Size < 0 || e.CLen < 0:
		return fmt.Errorf("entry %s with generation %d, size %d, stored %d", e.Rel, e.Gen, e.Size, e.CLen)
	}
	return nil
}

// save replaces the manifest with entries.
func (v *Vault) save(entries map[string]*Entry) error {
	list := make([]Entry, 0, len(entries))
	for _, e := range entries {
		list = append(list, *e)
	}
	sortEntries(list)
	return atomicfile.Write(filepath.Join(v.dir, manifestName), encodeManifest(list), atomicfile.Options{Perm: 0o600})
}

// Entries returns what the vault holds, in harness then path order. It
// takes no lock: the manifest is replaced whole, so it is always one
// sync's committed state. A process that asks again (a listing asks once
// per harness) gets the entries it parsed before while the manifest's
// size, time and inode are unchanged.
func (v *Vault) Entries() ([]Entry, error) {
	path := filepath.Join(v.dir, manifestName)
	fi, statErr := os.Lstat(path)
	if statErr == nil {
		memo.Lock()
		m, ok := memo.byPath[path]
		memo.Unlock()
		if ok && m.size == fi.Size() && m.mtime == fi.ModTime().UnixNano() && m.ino == inode(fi) {
			return slices.Clone(m.entries), nil
		}
	}
	m, err := v.load()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(m))
	for _, e := range m {
		out = append(out, *e)
	}
	sortEntries(out)
	if statErr == nil {
		memo.Lock()
		memo.byPath[path] = memoEntry{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi), entries: slices.Clone(out)}
		memo.Unlock()
	}
	return out, nil
}

// memo holds the last manifest parsed per vault in this process. An entry
// is used only while the stat it was read under still holds; a manifest
// replaced in the same nanosecond with the same size lands on a new inode
// (atomicfile renames a new file over it).
var memo = struct {
	sync.Mutex
	byPath map[string]memoEntry
}{byPath: map[string]memoEntry{}}

type memoEntry struct {
	size, mtime int64
	ino         uint64
	entries     []Entry
}

func sortEntries(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int {
		if c := strings.Compare(a.Harness, b.Harness); c != 0 {
			return c
		}
		if c := strings.Compare(a.Root, b.Root); c != 0 {
			return c
		}
		return strings.Compare(a.Rel, b.Rel)
	})
}
