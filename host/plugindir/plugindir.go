// Package plugindir says where external harness plugins are found and finds
// them. It is apart from the host so that a process that never starts a
// plugin (the one-shot helper) can still notice that one overrides a
// built-in harness, without linking go-plugin and gRPC.
package plugindir

import (
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

// Discover finds notesoup-harness-* executables in dirs, sorted by name. An
// earlier directory wins over a later one for the same name. Missing
// directories are not an error: most people have none.
func Discover(dirs []string) []External {
	seen := map[string]bool{}
	var out []External
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), Prefix)
			if !ok || name == "" || seen[name] {
				continue
			}
			path := filepath.Join(dir, e.Name())
			fi, err := os.Stat(path) // follows links: a linked plugin is fine
			if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				continue
			}
			seen[name] = true
			out = append(out, External{Name: name, Path: path})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
