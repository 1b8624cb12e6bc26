// Package skillcopy keeps the copies of the canonical skills and playbook
// byte-identical to the canonical files. The canonical files live in skills/
// and playbook/ at the repository root; each harness plugin ships a copy,
// which the build writes (Sync) and a test verifies (Check).
package skillcopy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Mirror says that folder To is a copy of folder From; both are
// slash-separated and relative to the repository root.
type Mirror struct {
	From, To string
}

// Mirrors lists every copy the repository keeps.
var Mirrors = []Mirror{
	{From: "skills", To: "plugins/claude/skills"},
	{From: "playbook", To: "plugins/claude/playbook"},
	{From: "skills", To: "plugins/pi/skills"},
}

// Problem is one way a copy differs from its canonical file.
type Problem struct {
	Path string // the copy's path, relative to the root
	What string // "missing", "differs" or "stale"
	From string // the canonical file, relative to the root ("" for stale)
}

func (p Problem) String() string {
	switch p.What {
	case "missing":
		return fmt.Sprintf("%s: missing copy of %s", p.Path, p.From)
	case "differs":
		return fmt.Sprintf("%s: differs from %s", p.Path, p.From)
	default:
		return fmt.Sprintf("%s: no canonical file; remove it, or add it under the canonical folder", p.Path)
	}
}

// DriftError lists every problem Check found.
type DriftError struct {
	Problems []Problem
}

func (e *DriftError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  " + p.String()
	}
	return fmt.Sprintf("%d skill/playbook copies drifted from the canonical files; run `go run ./shared/skillcopy/cmd/sync`:\n%s",
		len(e.Problems), strings.Join(lines, "\n"))
}

// canonical returns the files under root/from, relative to it, sorted.
// Dot files are skipped: editor and OS litter is not a skill.
func canonical(root, from string) ([]string, error) {
	dir := filepath.Join(root, filepath.FromSlash(from))
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("canonical folder %s: %w", from, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("canonical folder %s has no files", from)
	}
	sort.Strings(out)
	return out, nil
}

// Check compares every copy with its canonical file. A copy folder that
// does not exist yet is not drift (its plugin has not been built); inside
// one that exists, a missing, different or extra file is.
func Check(root string, mirrors []Mirror) error {
	var probs []Problem
	for _, m := range mirrors {
		files, err := canonical(root, m.From)
		if err != nil {
			return err
		}
		to := filepath.Join(root, filepath.FromSlash(m.To))
		if _, err := os.Stat(to); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		want := map[string]bool{}
		for _, f := range files {
			want[f] = true
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.From), filepath.FromSlash(f)))
			if err != nil {
				return err
			}
			dst, err := os.ReadFile(filepath.Join(to, filepath.FromSlash(f)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				probs = append(probs, Problem{Path: m.To + "/" + f, What: "missing", From: m.From + "/" + f})
			case err != nil:
				return err
			case !bytes.Equal(src, dst):
				probs = append(probs, Problem{Path: m.To + "/" + f, What: "differs", From: m.From + "/" + f})
			}
		}
		extra, err := stale(to, want)
		if err != nil {
			return err
		}
		for _, f := range extra {
			probs = append(probs, Problem{Path: m.To + "/" + f, What: "stale"})
		}
	}
	if len(probs) > 0 {
		return &DriftError{Problems: probs}
	}
	return nil
}

// stale lists files under dir (relative, slash-separated) not in want.
// Dot files are skipped, as in the canonical folders: a .gitignore or
// .DS_Store in a copy folder is not a skill and is left alone.
func stale(dir string, want map[string]bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); !want[rel] {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// Sync writes every copy that is missing or differs and removes stale
// files, returning the root-relative paths it changed. A copy folder is
// only created when its parent (the plugin folder) exists or create is
// true, so syncing never invents a plugin. Each file is written to a
// temporary file and renamed, so a reader never sees half a skill.
func Sync(root string, mirrors []Mirror, create bool) ([]string, error) {
	var changed []string
	for _, m := range mirrors {
		files, err := canonical(root, m.From)
		if err != nil {
			return changed, err
		}
		to := filepath.Join(root, filepath.FromSlash(m.To))
		if _, err := os.Stat(filepath.Dir(to)); errors.Is(err, fs.ErrNotExist) && !create {
			continue
		}
		want := map[string]bool{}
		for _, f := range files {
			want[f] = true
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.From), filepath.FromSlash(f)))
			if err != nil {
				return changed, err
			}
			dst := filepath.Join(to, filepath.FromSlash(f))
			if cur, err := os.ReadFile(dst); err == nil && bytes.Equal(cur, src) {
				continue
			}
			if err := writeFile(dst, src); err != nil {
				return changed, err
			}
			changed = append(changed, m.To+"/"+f)
		}
		extra, err := stale(to, want)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return changed, err
		}
		for _, f := range extra {
			if err := os.Remove(filepath.Join(to, filepath.FromSlash(f))); err != nil {
				return changed, err
			}
			changed = append(changed, m.To+"/"+f)
		}
	}
	return changed, nil
}

// copyPerm is the mode of written copies: ordinary readable source files.
const copyPerm = 0o644

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".skillcopy-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(copyPerm); err != nil {
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
	return os.Rename(tmp.Name(), path)
}

// FindRoot returns the nearest folder at or above dir holding go.mod: the
// repository root the mirrors are relative to.
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s; run from inside the repository or pass -root", abs)
		}
	}
}
