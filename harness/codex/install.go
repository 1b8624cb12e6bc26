package codex

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/atomicfile"
)

// What `notesoup install codex` writes into $CODEX_HOME, and what
// `notesoup uninstall codex` takes out again: the MCP server, the
// compaction prompt (install_config.go) and the hooks' trust
// (install_trust.go) in config.toml, the hooks in hooks.json
// (install_hooks.go), the memory and dream skills under skills/ and the
// dream playbook (install_skills.go). Neither ever replaces a person's own
// settings, and uninstall removes only what install wrote.

// Installer is the Codex installer: what `notesoup install codex` and
// `notesoup uninstall codex` run.
var Installer = &harness.Installer{HomeFlag: "codex-home", Home: Home, Install: Install, Uninstall: Uninstall}

// Codex's configuration files under its home.
const (
	configFile = "config.toml"
	hooksFile  = "hooks.json"
)

// maxConfigFile bounds what install reads of a configuration file: Codex's
// are a few KB written by hand or by `codex mcp add`; a larger one is not a
// configuration notesoup should rewrite.
const maxConfigFile = 4 << 20

// fileChange is one configuration file before and after.
type fileChange struct {
	path string // the file as the person knows it, under the Codex home
	// target is the file actually read and replaced: path, or the file a
	// symbolic link at path names (a dotfiles link), which is written
	// through so the link stays a link.
	target   string
	old, new []byte
	// remove deletes the file instead of writing new (nothing is left in
	// it that anyone wrote but notesoup).
	remove bool
}

// Install merges the notesoup MCP server, the compaction prompt and the
// hooks into req.Home's config.toml and hooks.json, running req.Binary. It
// never replaces a person's own settings: a different [mcp_servers.notesoup]
// is refused, a person's compaction prompt is kept (and reported), other
// hooks are kept beside notesoup's.
func Install(req harness.InstallRequest) (harness.InstallReport, error) {
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	hooks, err := plan(&rep, filepath.Join(req.Home, hooksFile), func(b []byte) ([]byte, []string, error) { return mergeHooks(b, req.Binary) })
	if err != nil {
		return rep, err
	}
	// The trust of the hooks as they will be, recorded with the rest.
	trust, trustErr := hooksTrust(req.Home, hooks.new)
	trusted := false
	cfg, err := plan(&rep, filepath.Join(req.Home, configFile), func(b []byte) ([]byte, []string, error) {
		out, msgs, err := mergeConfig(b, req.Binary)
		if err != nil {
			return nil, nil, err
		}
		if trustErr != nil {
			return out, append(msgs, fmt.Sprintf("%v; %s", trustErr, untrustedNote)), nil
		}
		withTrust, tmsgs, ok := mergeTrust(string(out), trust)
		trusted = ok
		return []byte(withTrust), append(msgs, tmsgs...), nil
	})
	if err != nil {
		return rep, err
	}
	if err := apply(&rep, []fileChange{cfg, hooks}); err != nil {
		return rep, err
	}
	if err := installSkills(&rep, req.Home); err != nil {
		return rep, err
	}
	if !trusted && trustErr == nil && !req.DryRun {
		rep.Messages = append(rep.Messages, untrustedNote)
	}
	return rep, nil
}

// hooksTrust is the trust of notesoup's hooks in the hooks.json text raw
// under home, keyed as Codex keys it: by the home as given, and by the
// home with its links resolved when that differs (Codex resolves a
// CODEX_HOME it is given, not a ~/.codex it finds).
func hooksTrust(home string, raw []byte) ([]hookTrust, error) {
	abs, err := filepath.Abs(home)
	if err != nil {
		return nil, err
	}
	homes := []string{abs}
	if r, err := filepath.EvalSymlinks(abs); err == nil && r != abs {
		homes = append(homes, r)
	}
	var out []hookTrust
	for _, h := range homes {
		t, err := notesoupHookTrust(h, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, t...)
	}
	return out, nil
}

// Uninstall removes from req.Home's config.toml and hooks.json what Install
// wrote, keeping every entry and comment of the person's own. When install
// was the only change, config.toml comes back byte for byte (and a file
// install created is removed). It never touches the notes.
func Uninstall(req harness.InstallRequest) (harness.InstallReport, error) {
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	hooks, err := plan(&rep, filepath.Join(req.Home, hooksFile), unmergeHooks)
	if err != nil {
		return rep, err
	}
	// The trust recorded for notesoup's hooks as they are now goes with
	// them; a hooks.json notesoup cannot read leaves config.toml's states.
	trust, _ := hooksTrust(req.Home, hooks.old)
	keys := make([]string, len(trust))
	for i, t := range trust {
		keys[i] = t.Key
	}
	cfg, err := plan(&rep, filepath.Join(req.Home, configFile), func(b []byte) ([]byte, []string, error) {
		out, msgs := unmergeTrust(string(b), keys)
		in := b
		if out != string(b) {
			in = []byte(out)
		}
		rest, more, err := unmergeConfig(in)
		if err != nil {
			return nil, nil, err
		}
		return rest, append(msgs, more...), nil
	})
	if err != nil {
		return rep, err
	}
	cfg.remove = len(cfg.old) > 0 && len(cfg.new) == 0
	hooks.remove = hooks.old != nil && hooks.new == nil
	// Removing a linked file would leave the link pointing at nothing, or
	// remove the person's dotfile: it is emptied instead (an empty TOML
	// file, an empty JSON object), and the link kept.
	for _, c := range []struct {
		ch    *fileChange
		empty string
	}{{&cfg, ""}, {&hooks, "{}\n"}} {
		if c.ch.remove && c.ch.linked() {
			c.ch.remove, c.ch.new = false, []byte(c.empty)
			rep.Messages = append(rep.Messages, c.ch.path+" is a symbolic link: its file is emptied, not removed, and the link kept")
		}
	}
	changes := []fileChange{cfg, hooks}
	if err := apply(&rep, changes); err != nil {
		return rep, err
	}
	if err := uninstallSkills(&rep, req.Home); err != nil {
		return rep, err
	}
	rep.Messages = append(rep.Messages, "The notes are kept.")
	return rep, nil
}

// plan reads path (an absent file reads as nil) and works out its new
// content with edit, keeping edit's messages in rep and naming the file in
// its error: Install and Uninstall differ only in their edits.
func plan(rep *harness.InstallReport, path string, edit func([]byte) ([]byte, []string, error)) (fileChange, error) {
	target, err := atomicfile.Target(path)
	if err != nil {
		return fileChange{}, fmt.Errorf("%w; notesoup writes through a link to a file but not to nothing", err)
	}
	old, err := readOptional(target)
	if err != nil {
		return fileChange{}, err
	}
	next, msgs, err := edit(old)
	if err != nil {
		return fileChange{}, fmt.Errorf("%s: %w", path, err)
	}
	rep.Messages = append(rep.Messages, msgs...)
	return fileChange{path: path, target: target, old: old, new: next}, nil
}

// linked reports whether the change goes through a symbolic link.
func (c fileChange) linked() bool { return c.target != c.path }

// where names the file for a message: the path, and where a link led.
func (c fileChange) where() string {
	if c.linked() {
		return c.path + " (through the link, to " + c.target + ")"
	}
	return c.path
}

// apply writes (or, with rep.DryRun, previews) each changed file, and says
// what it did in rep.
func apply(rep *harness.InstallReport, changes []fileChange) error {
	for _, c := range changes {
		if bytes.Equal(c.old, c.new) && !c.remove {
			rep.Messages = append(rep.Messages, c.where()+": already up to date")
			continue
		}
		rep.Changed = append(rep.Changed, c.path)
		verb, would := "wrote ", "would write "
		if c.remove {
			verb, would = "removed ", "would remove "
		}
		if rep.DryRun {
			rep.Preview = append(rep.Preview, harness.FilePreview{Path: c.path, Content: string(c.new), Removed: c.remove})
			rep.Messages = append(rep.Messages, would+c.where())
			continue
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
	}
	return nil
}

// readOptional reads a configuration file that may not exist yet (nil, no
// error). Only a regular file is read, and at most maxConfigFile bytes. A
// symbolic link is refused here: plan resolves one first (atomicfile.Target)
// and reads the file it names, so writing the merge back keeps the link.
func readOptional(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); notesoup edits only plain files: change it by hand", path, fi.Mode().Type())
	}
	// Non-blocking, so a file swapped for a FIFO since the Lstat cannot
	// hang install; the Stat below then refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; notesoup edits only plain files", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxConfigFile {
		return nil, fmt.Errorf("%s is larger than %d bytes; notesoup will not rewrite it", path, maxConfigFile)
	}
	if data == nil {
		data = []byte{} // present but empty: not the nil of a missing file
	}
	return data, nil
}

// replaceIfUnchanged writes data to target (path itself, or the file a link
// at path names) atomically (temp file in target's folder, fsync, rename),
// keeping the file's mode, unless the file changed since it was read as
// old — then someone else (Codex itself, `codex mcp add`) wrote it, and the
// merge would lose their change — or path no longer leads to target (the
// link was re-pointed meanwhile).
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

// removeIfUnchanged deletes path unless it changed since it was read as
// old.
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
