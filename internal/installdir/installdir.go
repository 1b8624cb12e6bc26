// Package installdir is where `notesoup install` keeps what the harnesses
// run: the notesoup binaries and the packages (the Claude Code marketplace,
// the Pi package) staged from a release or a build. Everything a harness's
// configuration points at lives here, never in a build directory or a
// checkout, so deleting a checkout or unpacking a new release elsewhere does
// not break an installed harness.
//
// The directory is $NOTESOUP_HOME when that is set (one variable isolates an
// install, as it does the notes), else $XDG_DATA_HOME/notesoup, else
// ~/.local/share/notesoup: binaries are not notes, and a notes home that a
// person keeps in git or syncs should not carry 30 MB of executables.
package installdir

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// Binary names: the light build people run, and the full build it hands the
// MCP server and plugin mode to (internal/handover).
const (
	Light = "notesoup"
	Host  = "notesoup-host"
)

// maxTreeFile bounds one file of a staged package: the binaries are tens of
// MB; anything far larger is not part of a notesoup package.
const maxTreeFile = 512 << 20

// maxTreeFiles bounds how many files a staged package may hold.
const maxTreeFiles = 10000

// Root returns notesoup's install directory (see the package comment).
func Root() (string, error) {
	return root(os.Getenv, os.UserHomeDir)
}

func root(getenv func(string) string, home func() (string, error)) (string, error) {
	if h := getenv("NOTESOUP_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "notesoup"), nil
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("no home directory for ~/.local/share/notesoup (%v); set NOTESOUP_HOME", err)
	}
	return filepath.Join(h, ".local", "share", "notesoup"), nil
}

// BinDir is where the installed binaries live: <root>/bin.
func BinDir(root string) string { return filepath.Join(root, "bin") }

// PackageDir is where a harness's staged package lives: <root>/packages/<name>.
func PackageDir(root, name string) string { return filepath.Join(root, "packages", name) }

// Change is one thing an install did, or with a dry run would do.
type Change struct {
	Path    string
	Message string
	Changed bool
}

// InstallBinaries copies the running notesoup (src) and, when one is beside
// it, its notesoup-host into dir, each atomically (a temporary file in dir,
// fsynced, renamed), so a harness starting notesoup meanwhile runs the old
// file or the new, never half a file. A file already identical is left
// alone; src already inside dir is not copied onto itself. The full build
// (go install) has no notesoup-host: then a stale one in dir is removed, so
// the pair never mixes versions.
func InstallBinaries(src, dir string, dryRun bool) ([]Change, error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return nil, err
	}
	srcHost := filepath.Join(filepath.Dir(src), Host)
	hasHost := isExecFile(srcHost)
	var out []Change
	// The host first: a light notesoup never runs beside an older host.
	pairs := [][2]string{}
	if hasHost {
		pairs = append(pairs, [2]string{srcHost, filepath.Join(dir, Host)})
	}
	pairs = append(pairs, [2]string{src, filepath.Join(dir, Light)})
	for _, p := range pairs {
		c, err := copyBinary(p[0], p[1], dryRun)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	if !hasHost {
		stale := filepath.Join(dir, Host)
		if _, err := os.Lstat(stale); err == nil && !sameFile(src, filepath.Join(dir, Light)) {
			c := Change{Path: stale, Changed: true, Message: "removed " + stale + " (this notesoup is the full build and needs none)"}
			if dryRun {
				c.Message = "would remove " + stale
			} else if err := os.Remove(stale); err != nil {
				return out, fmt.Errorf("removing %s: %w", stale, err)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// copyBinary copies one executable to dst unless dst already holds it.
func copyBinary(src, dst string, dryRun bool) (Change, error) {
	if sameFile(src, dst) {
		return Change{Path: dst, Message: dst + ": already installed (running from it)"}, nil
	}
	same, err := sameContent(src, dst)
	if err != nil {
		return Change{}, err
	}
	if same {
		return Change{Path: dst, Message: dst + ": already up to date"}, nil
	}
	if dryRun {
		return Change{Path: dst, Changed: true, Message: "would copy " + src + " to " + dst}, nil
	}
	if err := copyFileAtomic(src, dst, 0o755); err != nil {
		return Change{}, err
	}
	return Change{Path: dst, Changed: true, Message: "copied " + src + " to " + dst}, nil
}

// copyFileAtomic streams src into a temporary file beside dst and renames
// it over dst. Only a regular file is copied, at most maxTreeFile bytes.
func copyFileAtomic(src, dst string, perm os.FileMode) error {
	in, err := openRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(dst), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".notesoup-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, io.LimitReader(in, maxTreeFile+1))
	if err != nil {
		return fmt.Errorf("copying %s to %s: %w", src, dst, err)
	}
	if n > maxTreeFile {
		return fmt.Errorf("%s is larger than %d bytes; not a notesoup file", src, maxTreeFile)
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	done = true
	return atomicfile.SyncDir(filepath.Dir(dst))
}

// openRegular opens path for reading only if it is a regular file.
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file; notesoup copies only plain files", path)
	}
	return f, nil
}

func isExecFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// sameContent reports whether dst exists and has src's bytes.
func sameContent(src, dst string) (bool, error) {
	hd, err := hashFile(dst)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, nil // unreadable or not a file: replace it
	}
	hs, err := hashFile(src)
	if err != nil {
		return false, err
	}
	return bytes.Equal(hs, hd), nil
}

func hashFile(p string) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxTreeFile+1)); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// Stage makes dst a copy of the package folder src with the installed
// binaries (binDir's notesoup and notesoup-host, those present) placed in
// its binSub folder, replacing any binaries src carried: the package then
// runs exactly the notesoup that install put in binDir. src may be empty to
// restage dst itself with new binaries (a reinstall without a package at
// hand). Only folders and regular files are copied; a link in src is
// refused by name. dst is replaced as a whole: built beside it, then
// swapped in. It returns whether dst changed.
func Stage(src, dst, binSub, binDir string, dryRun bool) (bool, error) {
	if src == "" {
		src = dst
	}
	want, err := treeFiles(src, binSub)
	if err != nil {
		return false, err
	}
	for _, name := range []string{Host, Light} {
		p := filepath.Join(binDir, name)
		if isExecFile(p) {
			want[filepath.Join(binSub, name)] = p
		}
	}
	if _, ok := want[filepath.Join(binSub, Light)]; !ok {
		if dryRun {
			return true, nil // the binaries a real run would copy first
		}
		return false, fmt.Errorf("no notesoup binary in %s to put in the package", binDir)
	}
	if same, err := treeMatches(dst, want); err != nil {
		return false, err
	} else if same {
		return false, nil
	}
	if dryRun {
		return true, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".notesoup-*")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	names := sortedKeys(want)
	for _, rel := range names {
		perm := os.FileMode(0o644)
		if fi, err := os.Stat(want[rel]); err == nil && fi.Mode()&0o111 != 0 {
			perm = 0o755
		}
		if err := copyFileAtomic(want[rel], filepath.Join(tmp, rel), perm); err != nil {
			return false, err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return false, err
	}
	old := ""
	if _, err := os.Lstat(dst); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dst, old); err != nil {
			return false, fmt.Errorf("replacing %s: %w", dst, err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		if old != "" {
			_ = os.Rename(old, dst)
		}
		return false, fmt.Errorf("replacing %s: %w", dst, err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return true, atomicfile.SyncDir(filepath.Dir(dst))
}

// treeFiles maps each regular file under dir (relative path) to its path,
// leaving out binSub's notesoup binaries (Stage puts the installed ones
// there).
func treeFiles(dir, binSub string) (map[string]string, error) {
	out := map[string]string{}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("package folder %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("package %s is not a folder; unpack the archive and pass the folder", dir)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			if strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".notesoup-") {
				return fs.SkipDir // a temporary another Stage left
			}
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link; a notesoup package holds only plain files: copy the file in its place", p)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file; a notesoup package holds only plain files", p)
		}
		if filepath.Dir(rel) == filepath.Clean(binSub) && (d.Name() == Light || d.Name() == Host) {
			return nil
		}
		if len(out) >= maxTreeFiles {
			return fmt.Errorf("%s holds more than %d files; not a notesoup package", dir, maxTreeFiles)
		}
		out[rel] = p
		return nil
	})
	return out, err
}

// treeMatches reports whether dir holds exactly want's files with their
// content.
func treeMatches(dir string, want map[string]string) (bool, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	have, err := treeFiles(dir, "\x00") // every file, binaries included
	if err != nil {
		return false, nil // something odd there: restage it
	}
	if len(have) != len(want) {
		return false, nil
	}
	for rel, src := range want {
		dst, ok := have[rel]
		if !ok {
			return false, nil
		}
		if same, err := sameContent(src, dst); err != nil || !same {
			return false, err
		}
	}
	return true, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
