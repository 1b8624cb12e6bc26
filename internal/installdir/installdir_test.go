package installdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// TestInstallBinaries: the pair is copied, a second run changes nothing,
// a dry run writes nothing.
func TestInstallBinaries(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "bin")
	write(t, filepath.Join(src, Light), "light", 0o755)
	write(t, filepath.Join(src, Host), "host", 0o755)
	ch, err := InstallBinaries(filepath.Join(src, Light), dst, true)
	if err != nil || len(ch) != 2 || !ch[0].Changed {
		t.Fatalf("dry run: %+v, %v", ch, err)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Errorf("dry run created %s", dst)
	}
	if _, err := InstallBinaries(filepath.Join(src, Light), dst, false); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{Light: "light", Host: "host"} {
		b, _ := os.ReadFile(filepath.Join(dst, name))
		fi, _ := os.Stat(filepath.Join(dst, name))
		if string(b) != want || fi.Mode()&0o111 == 0 {
			t.Errorf("%s = %q mode %v", name, b, fi.Mode())
		}
	}
	ch, err = InstallBinaries(filepath.Join(src, Light), dst, false)
	if err != nil || ch[0].Changed || ch[1].Changed {
		t.Errorf("second run: %+v, %v", ch, err)
	}
}

// TestStageRefusesLinks: a package with a symbolic link is refused by name.
func TestStageRefusesLinks(t *testing.T) {
	pkg, bin := t.TempDir(), t.TempDir()
	write(t, filepath.Join(pkg, "package.json"), "{}", 0o644)
	write(t, filepath.Join(bin, Light), "x", 0o755)
	if err := os.Symlink("/etc/passwd", filepath.Join(pkg, "leak")); err != nil {
		t.Fatal(err)
	}
	_, err := Stage(pkg, filepath.Join(t.TempDir(), "stage"), "bin", bin, false)
	if err == nil || !strings.Contains(err.Error(), "leak") {
		t.Errorf("err = %v, want one naming the link", err)
	}
}

// TestStage: the package with the installed binaries in binSub; a second
// run is a no-op; a package's own binaries are replaced.
func TestStage(t *testing.T) {
	pkg, bin := t.TempDir(), t.TempDir()
	write(t, filepath.Join(pkg, "src", "index.ts"), "ext", 0o644)
	write(t, filepath.Join(pkg, "bin", Light), "old build", 0o755)
	write(t, filepath.Join(bin, Light), "installed", 0o755)
	dst := filepath.Join(t.TempDir(), "stage")
	if changed, err := Stage(pkg, dst, "bin", bin, false); err != nil || !changed {
		t.Fatalf("stage: %v %v", changed, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "bin", Light)); string(b) != "installed" {
		t.Errorf("staged binary = %q, want the installed one", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "src", "index.ts")); string(b) != "ext" {
		t.Errorf("staged file = %q", b)
	}
	if changed, err := Stage(pkg, dst, "bin", bin, false); err != nil || changed {
		t.Errorf("second stage: changed=%v err=%v", changed, err)
	}
}

// TestSnapshotRestore: keys uninstall leaves empty come out again, a file
// that did not exist is removed, a person's own keys keep their order.
func TestSnapshotRestore(t *testing.T) {
	tests := []struct {
		name, before, after, want string // want "" means the file is removed
	}{
		{"file created by install", "", `{"packages": []}`, ""},
		{"key added to a person's file", `{"theme": "dark", "z": 1}`, "{\n  \"theme\": \"dark\",\n  \"z\": 1,\n  \"packages\": []\n}\n", "{\n  \"theme\": \"dark\",\n  \"z\": 1\n}\n"},
		{"key that was there stays", `{"packages": []}`, `{"packages": []}`, `{"packages": []}`},
		{"non-empty key stays", `{}`, `{"packages": ["other"]}`, `{"packages": ["other"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "settings.json")
			if tc.before != "" {
				write(t, p, tc.before, 0o644)
			}
			snap, err := Take(p, []string{"packages"})
			if err != nil {
				t.Fatal(err)
			}
			rec := filepath.Join(t.TempDir(), "snap.json")
			if err := snap.Save(rec); err != nil {
				t.Fatal(err)
			}
			write(t, p, tc.after, 0o644)
			loaded, ok, err := Load(rec)
			if err != nil || !ok {
				t.Fatalf("load: %v %v", ok, err)
			}
			if _, err := loaded.Restore(false); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if tc.want == "" {
				if err == nil {
					t.Errorf("file left: %s", b)
				}
				return
			}
			if string(b) != tc.want {
				t.Errorf("after restore:\n%s\nwant:\n%s", b, tc.want)
			}
		})
	}
}
