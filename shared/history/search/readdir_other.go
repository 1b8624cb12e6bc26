//go:build !linux

package search

import "os"

// readDir lists dir's entries, sorted by name, with their types.
func readDir(dir string) ([]dirEntry, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]dirEntry, len(ents))
	for i, e := range ents {
		out[i] = dirEntry{name: e.Name(), kind: kindOf(e.Type())}
	}
	return out, nil
}
