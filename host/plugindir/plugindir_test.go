package plugindir

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
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

// TestScanSaysWhatItIgnored: a file named like a plugin that cannot be one
// used to vanish without a word; Scan names each with the reason and what
// to do, and still finds the usable ones.
func TestScanSaysWhatItIgnored(t *testing.T) {
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	write := func(n string, mode os.FileMode) {
		if err := os.WriteFile(path(n), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path(n), mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	write(Prefix+"good", 0o755)
	write(Prefix+"noexec", 0o644)
	write(Prefix, 0o755)
	if err := os.Mkdir(path(Prefix+"dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path("nowhere"), path(Prefix+"dangling")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path(Prefix+"fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("unrelated", 0o644) // not plugin-named: neither found nor reported

	found, ignored := Scan([]string{dir})
	if want := []External{{Name: "good", Path: path(Prefix + "good")}}; !reflect.DeepEqual(found, want) {
		t.Errorf("found %v, want %v", found, want)
	}
	want := map[string][]string{ // path -> fragments of its reason
		path(Prefix):              {"no harness", "rename"},
		path(Prefix + "dangling"): {"link to nothing"},
		path(Prefix + "dir"):      {"directory"},
		path(Prefix + "fifo"):     {"not a regular file"},
		path(Prefix + "noexec"):   {"not executable", "-rw-r--r--", "chmod +x " + path(Prefix+"noexec")},
	}
	for _, ig := range ignored {
		frags, ok := want[ig.Path]
		if !ok {
			t.Errorf("unexpected ignored entry %+v", ig)
			continue
		}
		delete(want, ig.Path)
		for _, f := range frags {
			if !strings.Contains(ig.Reason, f) {
				t.Errorf("%s: reason %q lacks %q", ig.Path, ig.Reason, f)
			}
		}
	}
	for p := range want {
		t.Errorf("%s was ignored without a word", p)
	}
}
