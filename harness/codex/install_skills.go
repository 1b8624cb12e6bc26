package codex

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/atomicfile"
)

// The memory and dream skills and the dream playbook, as Codex loads
// skills: $CODEX_HOME/skills/<name>/SKILL.md (Codex 0.171.0's
// "codex-home-skills"), with playbook/dream.md beside skills/ where
// skills/dream/SKILL.md names it, the layout the Claude mod and the Pi
// package ship. The embedded files are byte-identical copies of the
// repository's skills/ and playbook/ (an embedded file must live in the
// package's folder; TestSkillsAreTheCanonicalCopies keeps them so).
//
//go:embed skills/memory/SKILL.md skills/dream/SKILL.md playbook/dream.md
var skillFiles embed.FS

// skillPaths are the embedded files, relative to the Codex home, in the
// order install writes them.
var skillPaths = []string{"skills/memory/SKILL.md", "skills/dream/SKILL.md", "playbook/dream.md"}

// installSkills writes each skill file missing under home. A file that is
// there already is left alone: notesoup's copy is up to date, and any
// other is a person's (edited, or their own skill of that name), kept and
// reported.
func installSkills(rep *harness.InstallReport, home string) error {
	for _, rel := range skillPaths {
		want, _ := skillFiles.ReadFile(rel)
		path := filepath.Join(home, filepath.FromSlash(rel))
		have, err := readOptional(path)
		if err != nil {
			return err
		}
		switch {
		case bytes.Equal(have, want) && have != nil:
			rep.Messages = append(rep.Messages, path+": already up to date")
			continue
		case have != nil:
			rep.Messages = append(rep.Messages, path+": differs from notesoup's copy, kept (yours); delete it and install again for notesoup's")
			continue
		}
		rep.Changed = append(rep.Changed, path)
		if rep.DryRun {
			rep.Preview = append(rep.Preview, harness.FilePreview{Path: path, Content: string(want)})
			rep.Messages = append(rep.Messages, "would write "+path)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
		}
		err = atomicfile.Write(path, want, atomicfile.Options{
			TempPrefix: "." + filepath.Base(path) + ".notesoup-",
			Perm:       0o644,
			BeforeRename: func() error {
				return unchanged(path, nil) // still absent: nobody wrote one meanwhile
			},
		})
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		rep.Messages = append(rep.Messages, "wrote "+path)
	}
	return nil
}

// uninstallSkills removes each skill file that is still notesoup's copy
// byte for byte, then the folders that leaves empty; an edited copy is
// kept and reported.
func uninstallSkills(rep *harness.InstallReport, home string) error {
	for _, rel := range skillPaths {
		want, _ := skillFiles.ReadFile(rel)
		path := filepath.Join(home, filepath.FromSlash(rel))
		have, err := readOptional(path)
		if err != nil {
			return err
		}
		switch {
		case have == nil:
			continue
		case !bytes.Equal(have, want):
			rep.Messages = append(rep.Messages, path+": differs from notesoup's copy (edited?), kept")
			continue
		}
		rep.Changed = append(rep.Changed, path)
		if rep.DryRun {
			rep.Preview = append(rep.Preview, harness.FilePreview{Path: path, Removed: true})
			rep.Messages = append(rep.Messages, "would remove "+path)
			continue
		}
		if err := removeIfUnchanged(path, have); err != nil {
			return err
		}
		rep.Messages = append(rep.Messages, "removed "+path)
		// The skill's folder, and skills/ or playbook/ when they were only
		// notesoup's: os.Remove leaves a folder with anything in it.
		for dir := filepath.Dir(path); dir != home && len(dir) > len(home); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break
			}
		}
	}
	return nil
}
