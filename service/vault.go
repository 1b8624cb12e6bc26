package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
	"github.com/notesoup/notesoup/vault"
)

// VaultDirName is the vault's folder under the notesoup home.
const VaultDirName = "vault"

// VaultMark starts the title of a session the vault keeps whose original
// is gone, so every front end's listing says where it is read from.
const VaultMark = "[vault] "

// VaultDir returns the vault folder.
func (s *Service) VaultDir() string { return filepath.Join(s.home, VaultDirName) }

// openVault opens the vault, creating it (a sync, a restore).
func (s *Service) openVault() (*vault.Vault, error) { return vault.Open(s.VaultDir()) }

// existingVault opens the vault only when there is one: reading history
// must not create folders.
func (s *Service) existingVault() *vault.Vault {
	if fi, err := os.Lstat(s.VaultDir()); err != nil || !fi.IsDir() {
		return nil
	}
	v, err := vault.Open(s.VaultDir())
	if err != nil {
		return nil
	}
	return v
}

// harnessRoots returns the absolute session roots the service reads of a
// harness: the ones it was given (WithRoots), else the harness's own.
func (s *Service) harnessRoots(ctx context.Context, name string, h contract.Harness) ([]string, error) {
	roots := s.roots[name]
	if len(roots) == 0 {
		desc, err := h.Describe(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		roots = desc.DefaultRoots
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("%s root %q: %w", name, r, err)
		}
		out = append(out, abs)
	}
	return out, nil
}

// rootOf returns the root path lies under (the longest that holds it).
func rootOf(roots []string, path string) (string, bool) {
	best := ""
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && filepath.IsLocal(rel) && len(r) > len(best) {
			best = r
		}
	}
	return best, best != ""
}

// filesLister is what a harness called in-process may offer besides
// ListSessions with FilesOnly (harness.Builtin does): the listing as one
// slice, which a sync at every session start wants cheap.
type filesLister interface {
	ListFiles(ctx context.Context, roots []string) ([]history.Session, error)
}

// vaultFiles lists the session files of every harness under the roots the
// service reads, with each file's root. A harness that cannot be listed is
// named in the errors and the others are listed.
func (s *Service) vaultFiles(ctx context.Context) ([]vault.File, []string) {
	var files []vault.File
	var errs []string
	for _, name := range s.host.Names() {
		h, err := s.host.Harness(ctx, name)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		roots, err := s.harnessRoots(ctx, name, h)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if len(roots) == 0 {
			continue
		}
		add := func(sess history.Session) error {
			root, ok := rootOf(roots, sess.Path)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: %s is not under the roots %v; not kept", name, sess.Path, roots))
				return nil
			}
			files = append(files, vault.File{Harness: name, ID: sess.ID, Root: root, Path: sess.Path})
			return nil
		}
		if fl, ok := h.(filesLister); ok {
			var all []history.Session
			all, err = fl.ListFiles(ctx, roots)
			for _, sess := range all {
				add(sess)
			}
		} else {
			err = h.ListSessions(ctx, contract.SessionFilter{Roots: roots, FilesOnly: true}, add)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Sprintf("%s sessions: %v", name, err))
		}
	}
	return files, errs
}

// VaultSync copies every harness's transcripts that are new or have grown
// into the vault (package vault): the harnesses list them, built in or
// external plugins, under the roots the service reads. A harness or a
// file that fails is named in the stats' Errors; the error is the vault's
// (its lock, its manifest) or ctx's.
func (s *Service) VaultSync(ctx context.Context, o vault.SyncOptions) (vault.SyncStats, error) {
	v, err := s.openVault()
	if err != nil {
		return vault.SyncStats{}, err
	}
	files, errs := s.vaultFiles(ctx)
	st, err := v.Sync(ctx, files, o)
	st.Errors = append(errs, st.Errors...)
	return st, err
}

// goneEntries returns the vault's entries of harness under roots whose
// originals are gone and whose id starts with idPrefix, each materialized
// in the vault's cache (the cache path by the entry's key).
func goneEntries(v *vault.Vault, harness string, roots []string, idPrefix string) ([]vault.Entry, map[string]string, error) {
	es, err := v.Entries()
	if err != nil {
		return nil, nil, err
	}
	var gone []vault.Entry
	paths := map[string]string{}
	var errs []error
	for _, e := range es {
		if e.Harness != harness || !slices.Contains(roots, e.Root) || !strings.HasPrefix(e.ID, idPrefix) || !vault.Gone(e) {
			continue
		}
		p, err := v.Materialize(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		gone = append(gone, e)
		paths[p] = e.Key()
	}
	return gone, paths, errors.Join(errs...)
}

// vaultSessions describes the sessions of harness that the vault keeps and
// whose originals are gone: the harness lists their materialized copies
// under the vault's cache (so they are described, read and searched as at
// home, with the same ids and addresses), titled with VaultMark. None when
// there is no vault.
func (s *Service) vaultSessions(ctx context.Context, harness, idPrefix string) ([]history.Session, error) {
	v := s.existingVault()
	if v == nil {
		return nil, nil
	}
	h, err := s.host.Harness(ctx, harness)
	if err != nil {
		return nil, err
	}
	roots, err := s.harnessRoots(ctx, harness, h)
	if err != nil {
		return nil, err
	}
	gone, paths, gerr := goneEntries(v, harness, roots, idPrefix)
	if len(gone) == 0 {
		return nil, gerr
	}
	var cacheRoots []string
	for _, e := range gone {
		if r := v.CacheRoot(e.Harness, e.Root); !slices.Contains(cacheRoots, r) {
			cacheRoots = append(cacheRoots, r)
		}
	}
	var out []history.Session
	err = h.ListSessions(ctx, contract.SessionFilter{Roots: cacheRoots, IDPrefix: idPrefix}, func(sess history.Session) error {
		if _, ok := paths[sess.Path]; ok && strings.HasPrefix(sess.ID, idPrefix) {
			sess.Harness = harness
			sess = history.VisibleSession(sess)
			sess.Title = VaultMark + sess.Title
			out = append(out, sess)
		}
		return nil
	})
	return out, errors.Join(gerr, err)
}

// vaultSource is the search source of harness's sessions the vault keeps
// whose originals are gone: their materialized copies, searched as the
// harness's own files are. ok is false when there are none.
func (s *Service) vaultSource(ctx context.Context, name string, h contract.Harness, desc contract.Description) (search.Source, bool, error) {
	v := s.existingVault()
	if v == nil {
		return search.Source{}, false, nil
	}
	roots, err := s.harnessRoots(ctx, name, h)
	if err != nil {
		return search.Source{}, false, err
	}
	gone, paths, gerr := goneEntries(v, name, roots, "")
	if len(gone) == 0 {
		return search.Source{}, false, gerr
	}
	var cacheRoots []string
	for _, e := range gone {
		if r := v.CacheRoot(e.Harness, e.Root); !slices.Contains(cacheRoots, r) {
			cacheRoots = append(cacheRoots, r)
		}
	}
	src := search.FromHarness(ctx, h, desc, cacheRoots)
	src.Harness = name
	all := src.Files
	src.Files = func() ([]history.Session, error) {
		ss, err := all()
		kept := ss[:0]
		for _, sess := range ss {
			// Only the copies of gone originals: a restored session's
			// copy left in the cache would be a duplicate.
			if _, ok := paths[sess.Path]; ok {
				kept = append(kept, sess)
			}
		}
		return kept, err
	}
	return src, true, gerr
}

// VaultStatus sums up the vault per harness.
func (s *Service) VaultStatus() ([]vault.HarnessStatus, error) {
	v := s.existingVault()
	if v == nil {
		return nil, nil
	}
	return v.Status()
}

// ErrNotKept is wrapped by VaultRestore when the vault keeps no copy of
// the session.
var ErrNotKept = errors.New("is not in the vault")

// VaultRestore writes the session a selector names back to its harness's
// store, byte-identical to the vault's last copy (vault.Vault.Restore):
// never over a different file; with dryRun it only says what it would
// write.
func (s *Service) VaultRestore(ctx context.Context, selector string, dryRun bool) (history.Session, vault.Plan, error) {
	v := s.existingVault()
	if v == nil {
		return history.Session{}, vault.Plan{}, fmt.Errorf("there is no vault at %s yet; run notesoup vault sync first", s.VaultDir())
	}
	sess, err := history.Resolve(catalog{ctx, s}, selector, nil)
	if err != nil {
		return history.Session{}, vault.Plan{}, err
	}
	es, err := v.Entries()
	if err != nil {
		return sess, vault.Plan{}, err
	}
	for _, e := range es {
		if e.Harness != sess.Harness || e.Path() != sess.Path && v.CachePath(e) != sess.Path {
			continue
		}
		p, err := v.Restore(e, dryRun)
		if err == nil && p.Written {
			// The original is back: its cached copy would only be stale.
			_ = v.Forget(e)
		}
		return sess, p, err
	}
	return sess, vault.Plan{}, fmt.Errorf("session %s %w (%s); run notesoup vault sync to keep it", SessionRef(sess), ErrNotKept, s.VaultDir())
}
