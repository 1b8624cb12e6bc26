//go:build !linux

package walk

import "os"

// readDir lists dir's entries, sorted by name, with their types and
// paths (prefix and the name).
func readDir(dir, prefix string) ([]dirEntry, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]dirEntry, len(ents))
	for i, e := range ents {
		out[i] = dirEntry{path: prefix + e.Name(), kind: kindOf(e.Type())}
		out[i].name = out[i].path[len(prefix):]
	}
	return out, nil
}
