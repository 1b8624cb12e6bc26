package vault

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/notesoup/notesoup/internal/filelock"
	"github.com/notesoup/notesoup/shared/atomicfile"
)

// File is one transcript a sync copies: the caller lists them (the service
// does, through each harness's ListSessions with FilesOnly).
type File struct {
	// Harness names the harness that wrote it.
	Harness string
	// ID is the session id the harness lists it under.
	ID string
	// Root is the absolute session root the file lies under.
	Root string
	// Path is the file's absolute path; it must lie under Root.
	Path string
}

// SyncOptions adjust a sync.
type SyncOptions struct {
	// LockWait bounds the wait for another sync to finish (default
	// filelock.Wait). A sync started at every session start may pass a
	// short one: the sync that holds the lock copies the same files.
	LockWait time.Duration
	// CommitEvery is how many bytes a sync copies between manifest
	// commits (default 64 MiB), so a sync stopped during a first copy of
	// a large corpus keeps most of its work.
	CommitEvery int64
}

// defaultCommitEvery: a manifest commit rewrites about 300 bytes per
// transcript and fsyncs it, a few milliseconds for thousands of them,
// against a second or so of compressing 64 MiB.
const defaultCommitEvery = 64 << 20

// SyncStats says what a sync did.
type SyncStats struct {
	Files     int `json:"files"`     // files listed
	Unchanged int `json:"unchanged"` // same size, modification time and inode as last copied
	New       int `json:"new"`       // copied for the first time
	Grown     int `json:"grown"`     // appended to: only the new bytes copied
	Rewritten int `json:"rewritten"` // changed before their old end: a new generation
	Touched   int `json:"touched"`   // same bytes, a new modification time or inode
	Gone      int `json:"gone"`      // listed, but deleted before the sync reached them
	// BytesRead counts the original bytes copied; BytesStored the
	// compressed bytes they took.
	BytesRead   int64 `json:"bytes_read"`
	BytesStored int64 `json:"bytes_stored"`
	// Commits counts manifest replacements.
	Commits int `json:"commits"`
	// Errors names each file that could not be copied and why; the others
	// were copied all the same.
	Errors []string `json:"errors,omitempty"`
}

// hashSpan is how much of a copied prefix's head and tail is hashed to
// tell an append from a rewrite.
const hashSpan = 4 << 10

// Sync copies into the vault every file that is new or changed since it
// was last copied: the bytes appended, or the whole file as a new
// generation when it was rewritten. Files whose size, modification time
// and inode match the manifest are not opened, so a sync with nothing to
// do costs one manifest read and one lstat per file. A file that cannot be
// copied is named in the stats' Errors and the others are still copied;
// the error is the vault's own (the lock, the manifest) or ctx's.
func (v *Vault) Sync(ctx context.Context, files []File, o SyncOptions) (SyncStats, error) {
	var st SyncStats
	wait := o.LockWait
	if wait <= 0 {
		wait = filelock.Wait
	}
	every := o.CommitEvery
	if every <= 0 {
		every = defaultCommitEvery
	}
	lock, err := filelock.Acquire(filepath.Join(v.dir, lockName), 0o600, wait)
	if err != nil {
		return st, fmt.Errorf("vault sync: %w (another sync is copying; it copies these files too)", err)
	}
	defer lock.Release()
	m, err := v.load()
	if err != nil {
		return st, err
	}
	var enc *zstd.Encoder // made on the first copy: a no-op sync needs none
	dirty := false
	var sinceCommit int64
	commit := func() error {
		if !dirty {
			return nil
		}
		if err := v.save(m); err != nil {
			return fmt.Errorf("vault sync: commit the manifest: %w", err)
		}
		st.Commits++
		dirty, sinceCommit = false, 0
		return nil
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			if cerr := commit(); cerr != nil {
				return st, cerr
			}
			return st, err
		}
		st.Files++
		fi, err := os.Lstat(f.Path)
		if errors.Is(err, os.ErrNotExist) {
			st.Gone++
			continue
		}
		if err != nil {
			st.Errors = append(st.Errors, fmt.Sprintf("%s: %v", f.Path, err))
			continue
		}
		if !fi.Mode().IsRegular() {
			// Never opened: a FIFO would block the sync, a link could lead
			// anywhere.
			st.Errors = append(st.Errors, fmt.Sprintf("%s: not a regular file (%v); not copied", f.Path, fi.Mode().Type()))
			continue
		}
		key := entryKey(f.Harness, f.Path)
		old := m[key]
		if old != nil && old.Size == fi.Size() && old.MTime == fi.ModTime().UnixNano() && old.Ino == inode(fi) {
			st.Unchanged++
			continue
		}
		rel, err := relUnder(f.Root, f.Path)
		if err != nil {
			st.Errors = append(st.Errors, err.Error())
			continue
		}
		if enc == nil {
			enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
			if err != nil {
				return st, err
			}
		}
		e, kind, read, stored, err := v.copyOne(enc, f, rel, old)
		if err != nil {
			st.Errors = append(st.Errors, err.Error())
			continue
		}
		switch kind {
		case copiedNew:
			st.New++
		case copiedGrown:
			st.Grown++
		case copiedRewritten:
			st.Rewritten++
		case copiedTouched:
			st.Touched++
		}
		st.BytesRead += read
		st.BytesStored += stored
		m[key] = e
		dirty = true
		sinceCommit += read
		if sinceCommit >= every {
			if err := commit(); err != nil {
				return st, err
			}
		}
	}
	return st, commit()
}

// relUnder returns path relative to root, refusing a path outside it.
func relUnder(root, path string) (string, error) {
	if !filepath.IsAbs(root) || !filepath.IsAbs(path) {
		return "", fmt.Errorf("%s: root %q and path must be absolute", path, root)
	}
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: not under its root %s; not copied", path, root)
	}
	return filepath.ToSlash(rel), nil
}

type copyKind int

const (
	copiedNew copyKind = iota
	copiedGrown
	copiedRewritten
	copiedTouched
)

// copyOne copies what f gained since old (nil: never copied) into the
// vault and returns the entry that describes it, what happened, the
// original bytes read and the compressed bytes written.
func (v *Vault) copyOne(enc *zstd.Encoder, f File, rel string, old *Entry) (*Entry, copyKind, int64, int64, error) {
	// O_NONBLOCK: a FIFO swapped in since the lstat fails the regular
	// file check below instead of blocking the open.
	src, err := os.OpenFile(f.Path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%s: %w", f.Path, err)
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%s: %w", f.Path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, 0, 0, fmt.Errorf("%s: not a regular file; not copied", f.Path)
	}
	size := fi.Size()
	e := &Entry{Harness: f.Harness, ID: f.ID, Root: filepath.Clean(f.Root), Rel: rel, Gen: 1}
	kind := copiedNew
	var start int64
	if old != nil {
		*e = *old
		e.ID = f.ID
		e.Older = append([]Generation(nil), old.Older...)
		kind = copiedRewritten
		if size >= old.Size && v.dataIntact(*old) {
			same, err := prefixMatches(src, *old)
			if err != nil {
				return nil, 0, 0, 0, fmt.Errorf("%s: %w", f.Path, err)
			}
			if same && size == old.Size {
				// Same size, new time or inode: the whole file decides.
				same, err = wholeMatches(src, *old)
				if err != nil {
					return nil, 0, 0, 0, fmt.Errorf("%s: %w", f.Path, err)
				}
				if same {
					start, kind = old.Size, copiedTouched
				}
			} else if same {
				start, kind = old.Size, copiedGrown
			}
		}
		if kind == copiedRewritten {
			// The old generation stays as it is: nothing is lost.
			if old.CLen > 0 {
				e.Older = append(e.Older, Generation{Gen: old.Gen, Size: old.Size, CLen: old.CLen})
			}
			e.Gen, e.Size, e.CLen, e.Head, e.Tail, e.State = old.Gen+1, 0, 0, "", "", ""
		}
	}
	h, err := resumeHash(e.State)
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%s: vault entry: %w", f.Path, err)
	}
	var read, stored int64
	if size > start {
		in := io.TeeReader(io.NewSectionReader(src, start, size-start), h)
		clen, n, err := appendFrame(enc, v.dataFile(*e, e.Gen), e.CLen, in)
		if err != nil {
			return nil, 0, 0, 0, fmt.Errorf("%s: copy into the vault: %w", f.Path, err)
		}
		read, stored = n, clen-e.CLen
		e.CLen, e.Size = clen, start+n
	}
	if e.State, err = saveHash(h); err != nil {
		return nil, 0, 0, 0, err
	}
	e.Head, e.Tail, err = edgeHashes(src, e.Size)
	if err != nil {
		return nil, 0, 0, 0, fmt.Errorf("%s: %w", f.Path, err)
	}
	e.MTime, e.Ino = fi.ModTime().UnixNano(), inode(fi)
	if e.Size != size {
		// The file shrank while it was read: what was read is kept, and
		// the next sync looks at the file again.
		e.MTime = 0
	}
	e.Synced = time.Now().Unix()
	return e, kind, read, stored, nil
}

// dataIntact reports whether e's data file still holds its committed
// length; a shorter one (damaged outside notesoup) cannot be appended to,
// and the file is copied whole into a new generation instead.
func (v *Vault) dataIntact(e Entry) bool {
	if e.CLen == 0 {
		return true
	}
	fi, err := os.Lstat(v.dataFile(e, e.Gen))
	return err == nil && fi.Mode().IsRegular() && fi.Size() >= e.CLen
}

// prefixMatches reports whether the first and last hashSpan bytes of the
// old prefix are what they were when copied.
func prefixMatches(src io.ReaderAt, old Entry) (bool, error) {
	head, tail, err := edgeHashes(src, old.Size)
	if err != nil {
		return false, err
	}
	return head == old.Head && tail == old.Tail, nil
}

// wholeMatches reports whether src's first old.Size bytes hash to the
// state old holds.
func wholeMatches(src io.ReaderAt, old Entry) (bool, error) {
	want, err := resumeHash(old.State)
	if err != nil || old.State == "" {
		return false, nil // no state to check against: copied anew
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(src, 0, old.Size)); err != nil {
		return false, fmt.Errorf("read: %w", err)
	}
	return bytes.Equal(h.Sum(nil), want.Sum(nil)), nil
}

// resumeHash returns the SHA-256 hash resumed from a saved state ("" for
// a new one).
func resumeHash(state string) (hash.Hash, error) {
	h := sha256.New()
	if state == "" {
		return h, nil
	}
	b, err := base64.StdEncoding.DecodeString(state)
	if err != nil {
		return nil, fmt.Errorf("hash state: %w", err)
	}
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("hash state: %w", err)
	}
	return h, nil
}

// saveHash returns h's state for resumeHash.
func saveHash(h hash.Hash) (string, error) {
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// edgeHashes hashes the first and the last hashSpan bytes of src's first
// size bytes.
func edgeHashes(src io.ReaderAt, size int64) (string, string, error) {
	buf := make([]byte, min(size, hashSpan))
	if _, err := src.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && size == 0) {
		return "", "", fmt.Errorf("read the first %d bytes: %w", len(buf), err)
	}
	head := shortHash(buf)
	if _, err := src.ReadAt(buf, size-int64(len(buf))); err != nil && len(buf) > 0 {
		return "", "", fmt.Errorf("read the %d bytes before offset %d: %w", len(buf), size, err)
	}
	return head, shortHash(buf), nil
}

func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// appendFrame appends one zstd frame holding r's bytes to the data file at
// path, after cutting it back to committed (bytes a killed sync left past
// the manifest's length), and fsyncs it. It returns the file's new
// committed length and the bytes read from r.
func appendFrame(enc *zstd.Encoder, path string, committed int64, r io.Reader) (int64, int64, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, 0, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, 0, fmt.Errorf("%s is not a regular file; move it away", path)
	}
	if fi.Size() < committed {
		return 0, 0, fmt.Errorf("%s holds %d bytes, the manifest says %d; it was damaged", path, fi.Size(), committed)
	}
	if fi.Size() > committed {
		if err := f.Truncate(committed); err != nil {
			return 0, 0, err
		}
	}
	if _, err := f.Seek(committed, io.SeekStart); err != nil {
		return 0, 0, err
	}
	cw := &countWriter{w: f}
	enc.Reset(cw)
	n, err := io.Copy(enc, r)
	if cerr := enc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, 0, fmt.Errorf("fsync %s: %w", path, err)
	}
	if committed == 0 {
		// A new file: its name must be durable before the manifest names it.
		if err := atomicfile.SyncDir(dir); err != nil {
			return 0, 0, err
		}
	}
	return committed + cw.n, n, nil
}

// countWriter counts what passes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
