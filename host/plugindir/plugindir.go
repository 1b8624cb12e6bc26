// Package plugindir says where external harness plugins are found and finds
// them. It is apart from the host so that a process that never starts a
// plugin (the one-shot helper) can still notice that one overrides a
// built-in harness, without linking go-plugin and gRPC.
package plugindir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Prefix is the file name prefix of an external harness plugin: an
// executable named notesoup-harness-<name> in a plugin directory provides the
// harness <name> and overrides the built-in of that name.
const Prefix = "notesoup-harness-"

// DefaultDirs returns the plugin directories in precedence order:
// $NOTESOUP_PLUGIN_DIR (a list separated by the OS path-list separator), then
// $NOTESOUP_HOME/plugins (default ~/.notesoup/plugins).
func DefaultDirs() []string {
	var dirs []string
	if v := os.Getenv("NOTESOUP_PLUGIN_DIR"); v != "" {
		dirs = append(dirs, filepath.SplitList(v)...)
	}
	home := os.Getenv("NOTESOUP_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".notesoup")
		}
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, "plugins"))
	}
	return dirs
}

// External is one external plugin executable.
type External struct {
	Name string // the harness it provides
	Path string // the executable
}

// Ignored is a file named like a plugin that cannot be one, and why: a
// person who dropped it in the plugin directory is told, not left to guess
// why the harness never appears.
type Ignored struct {
	Name   string // the harness it would provide ("" if the name has none)
	Path   string
	Reason string // what is wrong and what to do about it
}

// Discover finds notesoup-harness-* executables in dirs, sorted by name. An
// earlier directory wins over a later one for the same name. Missing
// directories are not an error: most people have none.
func Discover(dirs []string) []External {
	found, _ := Scan(dirs)
	return found
}

// Scan is Discover that also returns the plugin-named files it ignored
// (not executable, not a regular file, a broken link, no harness name),
// sorted by path, each with the reason.
func Scan(dirs []string) ([]External, []Ignored) {
	seen := map[string]bool{}
	var (
		out     []External
		ignored []Ignored
	)
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), Prefix)
			if !ok {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if why := unusable(name, path); why != "" {
				ignored = append(ignored, Ignored{Name: name, Path: path, Reason: why})
				continue
			}
			if seen[name] {
				continue // shadowed by an earlier directory, as documented
			}
			seen[name] = true
			out = append(out, External{Name: name, Path: path})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	sort.Slice(ignored, func(i, j int) bool { return ignored[i].Path < ignored[j].Path })
	return out, ignored
}

// unusable says why the file at path cannot be run as the plugin for
// harness name, or "" if it can.
func unusable(name, path string) string {
	if name == "" {
		return "the name has no harness after " + Prefix + ": rename it " + Prefix + "<harness>"
	}
	fi, err := os.Stat(path) // follows links: a linked plugin is fine
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return "a link to nothing: point it at the plugin executable or remove it"
	case err != nil:
		return fmt.Sprintf("cannot be read (%v): fix its permissions or remove it", err)
	case fi.IsDir():
		return "a directory, not an executable: remove it or move the plugin out of it"
	case !fi.Mode().IsRegular():
		return fmt.Sprintf("not a regular file (%v): put the plugin executable here instead", fi.Mode().Type())
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Sprintf("not executable (mode %v): chmod +x %s to use it", fi.Mode().Perm(), path)
	}
	return ""
}
