package plugindir

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDiscover(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	write := func(dir, name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	piFirst := write(first, Prefix+"pi", 0o755)
	write(second, Prefix+"pi", 0o755) // shadowed by the first directory
	codex := write(second, Prefix+"codex", 0o755)
	write(first, Prefix+"claude", 0o644) // not executable: ignored
	write(first, Prefix, 0o755)          // no harness name: ignored
	write(first, "notesoup", 0o755)      // not a plugin
	if err := os.Mkdir(filepath.Join(second, Prefix+"dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(second, Prefix+"linked")
	if err := os.Symlink(codex, linked); err != nil {
		t.Fatal(err)
	}
	got := Discover([]string{filepath.Join(first, "missing"), first, second})
	want := []External{{Name: "codex", Path: codex}, {Name: "linked", Path: linked}, {Name: "pi", Path: piFirst}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Discover() = %v\nwant %v", got, want)
	}
}

func TestDefaultDirs(t *testing.T) {
	tests := []struct {
		name, pluginDir, home string
		want                  []string
	}{
		{"home only", "", "/h/.ns", []string{"/h/.ns/plugins"}},
		{"plugin dirs first", "/a" + string(os.PathListSeparator) + "/b", "/h/.ns", []string{"/a", "/b", "/h/.ns/plugins"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NOTESOUP_PLUGIN_DIR", tc.pluginDir)
			t.Setenv("NOTESOUP_HOME", tc.home)
			if got := DefaultDirs(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DefaultDirs() = %v, want %v", got, tc.want)
			}
		})
	}
}
