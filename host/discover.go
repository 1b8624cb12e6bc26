package host

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ExternalPrefix is the file name prefix of an external harness plugin:
// an executable named notesoup-harness-<name> in a plugin directory provides
// the harness <name> and overrides the built-in of that name.
const ExternalPrefix = "notesoup-harness-"

// SourceBuiltin is the Source of a harness served by the notesoup binary itself.
const SourceBuiltin = "built-in"

// DefaultPluginDirs returns the plugin directories in precedence order:
// $NOTESOUP_PLUGIN_DIR (a list separated by the OS path-list separator), then
// $NOTESOUP_HOME/plugins (default ~/.notesoup/plugins).
func DefaultPluginDirs() []string {
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

// candidate is one harness the host could start.
type candidate struct {
	name   string
	source string // SourceBuiltin or an executable path
}

// discoverExternal finds notesoup-harness-* executables in dirs. An earlier
// directory wins over a later one for the same name. Missing directories are
// not an error: most people have none.
func discoverExternal(dirs []string) []candidate {
	seen := map[string]bool{}
	var out []candidate
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), ExternalPrefix)
			if !ok || name == "" || seen[name] {
				continue
			}
			path := filepath.Join(dir, e.Name())
			fi, err := os.Stat(path) // follows links: a linked plugin is fine
			if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				continue
			}
			seen[name] = true
			out = append(out, candidate{name: name, source: path})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
