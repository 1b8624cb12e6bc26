package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	refuse := errors.New("changed meanwhile")
	tests := []struct {
		name     string
		existing string
		opts     Options
		wantErr  error
		want     string
		wantPerm os.FileMode
	}{
		{name: "creates", want: "new", wantPerm: 0o600},
		{name: "replaces", existing: "old", want: "new", wantPerm: 0o600},
		{name: "mode", opts: Options{Perm: 0o644}, want: "new", wantPerm: 0o644},
		{name: "refused before rename keeps the old file", existing: "old",
			opts: Options{BeforeRename: func() error { return refuse }}, wantErr: refuse, want: "old", wantPerm: 0o600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.md")
			if tc.existing != "" {
				if err := os.WriteFile(path, []byte(tc.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, []byte("new"), tc.opts)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("content %q, want %q", got, tc.want)
			}
			st, _ := os.Stat(path)
			if st.Mode().Perm() != tc.wantPerm {
				t.Fatalf("mode %v, want %v", st.Mode().Perm(), tc.wantPerm)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("temporary files left: %v", ents)
			}
		})
	}
	if err := Write(filepath.Join(t.TempDir(), "missing", "f"), nil, Options{}); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
}

// TestTargetKeepsLinks: writing to Target(path) replaces the file a link
// names and leaves the link a link (Write on the link itself would replace
// it with a file); links that lead nowhere are refused, naming the link.
func TestTargetKeepsLinks(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(p("dotfiles/codex"), 0o700))
	must(os.WriteFile(p("dotfiles/codex/config.toml"), []byte("old"), 0o640))
	must(os.WriteFile(p("plain"), []byte("old"), 0o600))
	must(os.Symlink("dotfiles/codex/config.toml", p("relative")))    // relative, as dotfile managers make them
	must(os.Symlink(p("relative"), p("chain")))                      // a link to a link
	must(os.Symlink("dotfiles", p("linkeddir")))                     // a linked folder on the way
	must(os.Symlink("../codex/config.toml", p("dotfiles/codex/up"))) // `..` from inside the folder
	must(os.Symlink("linkeddir/codex/up", p("via-folder")))          // through the linked folder, then `..`
	must(os.Symlink("missing.toml", p("dangling")))
	must(os.Symlink("loop-b", p("loop-a")))
	must(os.Symlink("loop-a", p("loop-b")))
	real, err := filepath.EvalSymlinks(p("dotfiles/codex/config.toml"))
	must(err)

	tests := []struct {
		name, path, want, err string
	}{
		{name: "absent", path: p("new"), want: p("new")},
		{name: "plain file", path: p("plain"), want: p("plain")},
		{name: "relative link", path: p("relative"), want: real},
		{name: "chain of links", path: p("chain"), want: real},
		{name: "through a linked folder", path: p("via-folder"), want: real},
		{name: "dangling", path: p("dangling"), err: "missing.toml, which does not exist"},
		{name: "cycle", path: p("loop-a"), err: "cannot be followed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Target(tc.path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.path) {
					t.Fatalf("Target(%s) = %q, %v; want an error naming it and %q", tc.path, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Target(%s) = %q, %v; want %q", tc.path, got, err, tc.want)
			}
		})
	}

	// Writing through the chain replaces the real file and keeps every link.
	target, err := Target(p("chain"))
	must(err)
	must(Write(target, []byte("new"), Options{Perm: 0o640}))
	for _, l := range []string{"chain", "relative"} {
		if fi, err := os.Lstat(p(l)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v, %v", l, fi.Mode(), err)
		}
	}
	if b, _ := os.ReadFile(p("chain")); string(b) != "new" {
		t.Errorf("through the link: %q, want new", b)
	}
}
