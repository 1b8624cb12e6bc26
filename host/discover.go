package host

import "github.com/notesoup/notesoup/host/plugindir"

// SourceBuiltin is the Source of a harness served by the notesoup binary itself.
const SourceBuiltin = "built-in"

// candidate is one harness the host could start.
type candidate struct {
	name   string
	source string // SourceBuiltin or an executable path
}

// discoverExternal finds the external plugins in dirs (see plugindir).
func discoverExternal(dirs []string) []candidate {
	var out []candidate
	for _, e := range plugindir.Discover(dirs) {
		out = append(out, candidate{name: e.Name, source: e.Path})
	}
	return out
}

// Ignored returns the files in the plugin directories that are named like
// plugins but cannot be run as one (see plugindir.Scan), each with the
// reason, so a listing can show them instead of leaving them out silently.
func (h *Host) Ignored() []plugindir.Ignored {
	_, ignored := plugindir.Scan(h.dirs)
	return ignored
}
