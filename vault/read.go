package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// maxWindow bounds a frame's window when decoding.
const maxWindow = 64 << 20

// WriteTo writes the bytes of e's current generation, as last copied, to
// w. It reads only the committed length of the data file and fails unless
// that decodes to exactly e.Size bytes (each frame carries a checksum).
func (v *Vault) WriteTo(w io.Writer, e Entry) (int64, error) {
	if err := e.check(); err != nil {
		return 0, err
	}
	path := v.dataFile(e, e.Gen)
	if e.CLen == 0 {
		if e.Size != 0 {
			return 0, fmt.Errorf("vault copy of %s: no data for %d bytes", e.Path(), e.Size)
		}
		return 0, nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return 0, fmt.Errorf("vault copy of %s: %w", e.Path(), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() || fi.Size() < e.CLen {
		return 0, fmt.Errorf("vault copy of %s: %s is damaged (%d bytes, %d committed)", e.Path(), path, fi.Size(), e.CLen)
	}
	// The window bound holds a damaged or planted frame to memory the
	// encoder would ever use (SpeedDefault: 8 MiB).
	dec, err := zstd.NewReader(io.LimitReader(f, e.CLen), zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(maxWindow), zstd.WithDecoderMaxMemory(maxWindow))
	if err != nil {
		return 0, err
	}
	defer dec.Close()
	// One byte past Size proves there is nothing more.
	n, err := io.Copy(w, io.LimitReader(dec, e.Size+1))
	if err != nil {
		return n, fmt.Errorf("vault copy of %s: %s: %w", e.Path(), path, err)
	}
	if n != e.Size {
		return n, fmt.Errorf("vault copy of %s: %s decodes to %d bytes, the manifest says %d; it is damaged", e.Path(), path, n, e.Size)
	}
	return n, nil
}

// Bytes returns e's current generation whole; for tests and small files.
func (v *Vault) Bytes(e Entry) ([]byte, error) {
	var b bytes.Buffer
	_, err := v.WriteTo(&b, e)
	return b.Bytes(), err
}

// CacheRoot returns the folder under which Materialize writes the gone
// transcripts of one harness root, laid out as under the root itself, so
// the harness lists and decodes them there as it would at home.
func (v *Vault) CacheRoot(harness, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(v.dir, CacheDir, harness, hex.EncodeToString(sum[:8]))
}

// CachePath returns where Materialize writes e.
func (v *Vault) CachePath(e Entry) string {
	return filepath.Join(v.CacheRoot(e.Harness, e.Root), filepath.FromSlash(e.Rel))
}

// Materialize writes e's current generation to its CachePath (0600, in
// 0700 folders, its modification time the original's) unless a copy of
// the same size and time is already there, and returns the path. Writes
// are atomic, so readers in several processes may materialize at once.
func (v *Vault) Materialize(e Entry) (string, error) {
	if err := e.check(); err != nil {
		return "", err
	}
	dst := v.CachePath(e)
	if fi, err := os.Lstat(dst); err == nil && fi.Mode().IsRegular() && fi.Size() == e.Size && e.MTime != 0 && fi.ModTime().UnixNano() == e.MTime {
		return dst, nil
	}
	if err := mkdirPrivate(filepath.Dir(dst)); err != nil {
		return "", err
	}
	var b bytes.Buffer
	if _, err := v.WriteTo(&b, e); err != nil {
		return "", err
	}
	if err := atomicfile.Write(dst, b.Bytes(), atomicfile.Options{Perm: 0o600}); err != nil {
		return "", fmt.Errorf("vault cache %s: %w", dst, err)
	}
	if e.MTime != 0 {
		t := time.Unix(0, e.MTime)
		_ = os.Chtimes(dst, t, t)
	}
	return dst, nil
}

// Forget removes e's materialized copy, if any (its original is back).
func (v *Vault) Forget(e Entry) error {
	err := os.Remove(v.CachePath(e))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// mkdirPrivate makes dir and its missing parents 0700.
func mkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("vault folder %s: %w", dir, err)
	}
	return nil
}

// Plan says what Restore writes, or would write.
type Plan struct {
	// Target is the original's path; Size and SHA256 describe the bytes.
	Target string `json:"target"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Exists says a file is at Target already; Same that it holds exactly
	// these bytes (nothing to do).
	Exists bool `json:"exists"`
	Same   bool `json:"same"`
	// Written says Restore wrote the file (false on a dry run).
	Written bool `json:"written"`
}

// ErrDiffers is wrapped by Restore when a different file is at the target.
var ErrDiffers = errors.New("a different file is already there")

// Restore writes e's current generation back to the original's path,
// byte-identical to the last copy. It never overwrites: a file already
// there with the same bytes is left as it is, and a different one is
// refused (ErrDiffers). With dryRun it only says what it would write. New
// folders are 0700 and the file 0600; its modification time is now, so a
// harness that deletes by age does not delete it again at once.
func (v *Vault) Restore(e Entry, dryRun bool) (Plan, error) {
	var b bytes.Buffer
	if _, err := v.WriteTo(&b, e); err != nil {
		return Plan{}, err
	}
	sum := sha256.Sum256(b.Bytes())
	p := Plan{Target: e.Path(), Size: int64(b.Len()), SHA256: hex.EncodeToString(sum[:])}
	if fi, err := os.Lstat(p.Target); err == nil {
		p.Exists = true
		if !fi.Mode().IsRegular() {
			return p, fmt.Errorf("restore %s: %w (not a regular file); move it away first", p.Target, ErrDiffers)
		}
		same, err := sameContent(p.Target, b.Bytes())
		if err != nil {
			return p, fmt.Errorf("restore %s: %w", p.Target, err)
		}
		if !same {
			return p, fmt.Errorf("restore %s: %w (%d bytes, the vault's copy %d); move it away first to restore the vault's copy", p.Target, ErrDiffers, fi.Size(), p.Size)
		}
		p.Same = true
		return p, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return p, fmt.Errorf("restore %s: %w", p.Target, err)
	}
	if dryRun {
		return p, nil
	}
	dir := filepath.Dir(p.Target)
	if err := mkdirPrivate(dir); err != nil {
		return p, err
	}
	if err := writeNew(p.Target, b.Bytes()); err != nil {
		if errors.Is(err, os.ErrExist) {
			return p, fmt.Errorf("restore %s: %w (it appeared while restoring); run restore again to compare", p.Target, ErrDiffers)
		}
		return p, fmt.Errorf("restore %s: %w", p.Target, err)
	}
	p.Written = true
	return p, nil
}

// writeNew writes data to path, which must not exist: a temporary file is
// written and fsynced, then hard-linked to path, which fails rather than
// replaces a file that appeared meanwhile.
func writeNew(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".notesoup-restore-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(name, path); err != nil {
		return err
	}
	return atomicfile.SyncDir(dir)
}

// sameContent reports whether the regular file at path holds exactly want.
func sameContent(path string, want []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != int64(len(want)) {
		return false, nil
	}
	got := make([]byte, 64<<10)
	off := 0
	for off < len(want) {
		n, err := f.Read(got[:min(len(got), len(want)-off)])
		if n > 0 && !bytes.Equal(got[:n], want[off:off+n]) {
			return false, nil
		}
		off += n
		if err != nil {
			if errors.Is(err, io.EOF) {
				return off == len(want), nil
			}
			return false, err
		}
	}
	return true, nil
}
