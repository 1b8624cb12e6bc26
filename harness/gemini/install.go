package gemini

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

// What `notesoup install gemini` writes into the user's Gemini settings
// (~/.gemini/settings.json, or under $GEMINI_CLI_HOME), and what
// `notesoup uninstall gemini` takes out again: the MCP server
// mcpServers.notesoup and the hooks (SessionStart, AfterTool, BeforeAgent;
// install_settings.go).
// The file is JSON with comments; it is edited as text, so comments and
// layout stay, and uninstall after install gives back the same bytes.

// Installer is the Gemini CLI installer: what `notesoup install gemini`
// and `notesoup uninstall gemini` run. Its directory flag names the .gemini
// folder itself (GEMINI_CLI_HOME is the folder that holds it).
var Installer = &harness.Installer{HomeFlag: "gemini-dir", Home: Home, Install: Install, Uninstall: Uninstall}

// settingsFile is the user settings file in the .gemini folder.
const settingsFile = "settings.json"

// installNote is said after an install that changed something.
const installNote = "Gemini reads settings.json at start: restart running gemini sessions. notesoup's MCP server is trusted (its tools run without a prompt); the SessionStart hook gives each session the boot block, and the AfterTool and BeforeAgent hooks the budget warning once per window."

// Install merges notesoup's MCP server and hook into req.Home's
// settings.json, running req.Binary. It never replaces a person's own
// mcpServers.notesoup, and keeps every other server and hook.
func Install(req harness.InstallRequest) (harness.InstallReport, error) {
	rep, c, err := plan(req, func(b []byte) ([]byte, []string, error) { return mergeSettings(b, req.Binary) })
	if err != nil {
		return rep, err
	}
	if err := apply(&rep, c); err != nil {
		return rep, err
	}
	if !req.DryRun && len(rep.Changed) > 0 {
		rep.Messages = append(rep.Messages, installNote)
	}
	return rep, nil
}

// Uninstall removes from req.Home's settings.json what Install wrote,
// keeping every comment and setting of the person's own; a file that held
// nothing else is removed (emptied, when it is a link). It never touches
// the notes.
func Uninstall(req harness.InstallRequest) (harness.InstallReport, error) {
	rep, c, err := plan(req, unmergeSettings)
	if err != nil {
		return rep, err
	}
	c.remove = c.old != nil && c.new == nil
	if c.remove && c.target != c.path {
		c.remove, c.new = false, []byte(emptyFile)
		rep.Messages = append(rep.Messages, c.path+" is a symbolic link: its file is emptied, not removed, and the link kept")
	}
	if err := apply(&rep, c); err != nil {
		return rep, err
	}
	rep.Messages = append(rep.Messages, "The notes are kept.")
	return rep, nil
}

// change is the settings file before and after.
type change struct {
	path, target string // the file, and the file a link at path names
	old, new     []byte
	remove       bool
}

// plan reads the settings file (through a link, to the file it names) and
// works out its new content with edit.
func plan(req harness.InstallRequest, edit func([]byte) ([]byte, []string, error)) (harness.InstallReport, change, error) {
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	path := filepath.Join(req.Home, settingsFile)
	target, err := atomicfile.Target(path)
	if err != nil {
		return rep, change{}, fmt.Errorf("%w; notesoup writes through a link to a file but not to nothing", err)
	}
	old, err := readOptional(target)
	if err != nil {
		return rep, change{}, err
	}
	next, msgs, err := edit(old)
	if err != nil {
		return rep, change{}, fmt.Errorf("%s: %w", path, err)
	}
	rep.Messages = append(rep.Messages, msgs...)
	return rep, change{path: path, target: target, old: old, new: next}, nil
}

// where names the file for a message: the path, and where a link led.
func (c change) where() string {
	if c.target != c.path {
		return c.path + " (through the link, to " + c.target + ")"
	}
	return c.path
}

// apply writes (or, with rep.DryRun, previews) the change.
func apply(rep *harness.InstallReport, c change) error {
	if bytes.Equal(c.old, c.new) && !c.remove {
		rep.Messages = append(rep.Messages, c.where()+": already up to date")
		return nil
	}
	rep.Changed = append(rep.Changed, c.path)
	verb, would := "wrote ", "would write "
	if c.remove {
		verb, would = "removed ", "would remove "
	}
	if rep.DryRun {
		rep.Preview = append(rep.Preview, harness.FilePreview{Path: c.path, Content: string(c.new), Removed: c.remove})
		rep.Messages = append(rep.Messages, would+c.where())
		return nil
	}
	var err error
	if c.remove {
		err = removeIfUnchanged(c.path, c.old)
	} else {
		err = replaceIfUnchanged(c.path, c.target, c.old, c.new)
	}
	if err != nil {
		return err
	}
	rep.Messages = append(rep.Messages, verb+c.where())
	return nil
}

// readOptional reads a settings file that may not exist yet (nil, no
// error): a regular file only, at most reset.MaxSettingsBytes.
func readOptional(path string) ([]byte, error) {
	data, err := reset.ReadSettingsFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; notesoup edits only plain files: change it by hand", path, err)
	}
	if data == nil {
		data = []byte{} // present but empty: not the nil of a missing file
	}
	return data, nil
}

// replaceIfUnchanged writes data to target atomically, keeping its mode,
// unless the file changed since it was read as old (Gemini itself writes
// settings.json, from /settings) or path no longer leads to target.
func replaceIfUnchanged(path, target string, old, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(target), err)
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	err := atomicfile.Write(target, data, atomicfile.Options{
		TempPrefix: "." + filepath.Base(target) + ".notesoup-",
		Perm:       mode,
		BeforeRename: func() error {
			if now, err := atomicfile.Target(path); err != nil || now != target {
				return fmt.Errorf("%s changed while notesoup was editing it (it no longer leads to %s); nothing written, run the command again", path, target)
			}
			return unchanged(target, old)
		},
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
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
	now, err := readOptional(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) || (now == nil) != (old == nil) {
		return fmt.Errorf("%s changed while notesoup was editing it; nothing written, run the command again", path)
	}
	return nil
}
