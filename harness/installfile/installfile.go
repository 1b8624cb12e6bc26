// Package installfile is the file side of `notesoup install` and
// `uninstall` for a harness whose configuration is a handful of files:
// read a file that may not exist yet (a regular file only, bounded), work
// out its new content, and write it (or, with a dry run, preview it)
// atomically, through a link to the file it names, and only if nobody
// changed the file since it was read — harnesses write their own settings
// too. The harness packages (harness/copilot, harness/opencode) decide
// what goes into the files; this package only moves bytes.
package installfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/shared/reset"
)

// Change is one file before and after.
type Change struct {
	Path   string // the file as named
	Target string // the file a link at Path names (Path when it is no link)
	Old    []byte // nil: the file does not exist
	New    []byte
	// Remove deletes the file instead of writing New.
	Remove bool
	// Perm is the mode of a file that does not exist yet (0o600 if zero).
	Perm os.FileMode
}

// Plan reads path (through a link, to the file it names) and works out
// its new content with edit, which gets nil for a missing file. edit's
// messages are returned for the report.
func Plan(path string, edit func(old []byte) ([]byte, []string, error)) (Change, []string, error) {
	target, err := atomicfile.Target(path)
	if err != nil {
		return Change{}, nil, fmt.Errorf("%w; notesoup writes through a link to a file but not to nothing", err)
	}
	old, err := ReadOptional(target)
	if err != nil {
		return Change{}, nil, err
	}
	next, msgs, err := edit(old)
	if err != nil {
		return Change{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return Change{Path: path, Target: target, Old: old, New: next}, msgs, nil
}

// Where names the file for a message: the path, and where a link led.
func (c Change) Where() string {
	if c.Target != c.Path {
		return c.Path + " (through the link, to " + c.Target + ")"
	}
	return c.Path
}

// Unchanged reports whether applying c would change nothing.
func (c Change) Unchanged() bool {
	if c.Remove {
		return c.Old == nil
	}
	return bytes.Equal(c.Old, c.New) && (c.Old == nil) == (c.New == nil)
}

// Apply writes (or, with rep.DryRun, previews) the change and says so in
// rep.
func Apply(rep *harness.InstallReport, c Change) error {
	if c.Unchanged() {
		if c.Old != nil {
			rep.Messages = append(rep.Messages, c.Where()+": already up to date")
		}
		return nil
	}
	rep.Changed = append(rep.Changed, c.Path)
	verb, would := "wrote ", "would write "
	if c.Remove {
		verb, would = "removed ", "would remove "
	}
	if rep.DryRun {
		rep.Preview = append(rep.Preview, harness.FilePreview{Path: c.Path, Content: string(c.New), Removed: c.Remove})
		rep.Messages = append(rep.Messages, would+c.Where())
		return nil
	}
	var err error
	if c.Remove {
		err = removeIfUnchanged(c.Path, c.Old)
	} else {
		err = replaceIfUnchanged(c)
	}
	if err != nil {
		return err
	}
	rep.Messages = append(rep.Messages, verb+c.Where())
	return nil
}

// ReadOptional reads a file that may not exist yet (nil, no error): a
// regular file only, at most reset.MaxSettingsBytes. A present empty file
// is an empty, non-nil slice.
func ReadOptional(path string) ([]byte, error) {
	data, err := reset.ReadSettingsFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; notesoup edits only plain files: change it by hand", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// replaceIfUnchanged writes c.New to c.Target atomically, keeping its
// mode, unless the file changed since it was read or c.Path no longer
// leads to c.Target.
func replaceIfUnchanged(c Change) error {
	if err := os.MkdirAll(filepath.Dir(c.Target), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(c.Target), err)
	}
	mode := c.Perm
	if mode == 0 {
		mode = 0o600
	}
	if st, err := os.Stat(c.Target); err == nil {
		mode = st.Mode().Perm()
	}
	err := atomicfile.Write(c.Target, c.New, atomicfile.Options{
		TempPrefix: "." + filepath.Base(c.Target) + ".notesoup-",
		Perm:       mode,
		BeforeRename: func() error {
			if now, err := atomicfile.Target(c.Path); err != nil || now != c.Target {
				return fmt.Errorf("%s changed while notesoup was editing it (it no longer leads to %s); nothing written, run the command again", c.Path, c.Target)
			}
			return unchanged(c.Target, c.Old)
		},
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", c.Path, err)
	}
	return nil
}

// removeIfUnchanged deletes path unless it changed since it was read.
func removeIfUnchanged(path string, old []byte) error {
	if err := unchanged(path, old); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}

// unchanged checks that path still holds old (nil: still absent).
func unchanged(path string, old []byte) error {
	now, err := ReadOptional(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) || (now == nil) != (old == nil) {
		return fmt.Errorf("%s changed while notesoup was editing it; nothing written, run the command again", path)
	}
	return nil
}
