package skillcopy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var testMirrors = []Mirror{{From: "skills", To: "plugins/claude/skills"}, {From: "playbook", To: "plugins/claude/playbook"}, {From: "skills", To: "plugins/pi/skills"}}

var canon = map[string]string{
	"skills/memory/SKILL.md": "memory\n",
	"skills/dream/SKILL.md":  "dream\n",
	"playbook/dream.md":      "steps\n",
}

func problems(err error) []string {
	var d *DriftError
	if !errors.As(err, &d) {
		return nil
	}
	var out []string
	for _, p := range d.Problems {
		out = append(out, p.What+" "+p.Path)
	}
	sort.Strings(out)
	return out
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		extra map[string]string // files beyond the canonical ones
		want  []string          // problems; nil means Check passes
	}{
		{name: "no copy folders yet"},
		{name: "plugin folder exists but no copy folder", extra: map[string]string{"plugins/claude/manifest.json": "{}"}},
		{name: "identical copies", extra: map[string]string{
			"plugins/claude/skills/memory/SKILL.md": "memory\n", "plugins/claude/skills/dream/SKILL.md": "dream\n",
			"plugins/claude/playbook/dream.md": "steps\n"}},
		{name: "drifted copy", extra: map[string]string{
			"plugins/claude/skills/memory/SKILL.md": "memory edited in place\n", "plugins/claude/skills/dream/SKILL.md": "dream\n"},
			want: []string{"differs plugins/claude/skills/memory/SKILL.md"}},
		{name: "one byte of difference", extra: map[string]string{
			"plugins/pi/skills/memory/SKILL.md": "memory", "plugins/pi/skills/dream/SKILL.md": "dream\n"},
			want: []string{"differs plugins/pi/skills/memory/SKILL.md"}},
		{name: "missing copy in an existing folder", extra: map[string]string{"plugins/pi/skills/memory/SKILL.md": "memory\n"},
			want: []string{"missing plugins/pi/skills/dream/SKILL.md"}},
		{name: "stale copy", extra: map[string]string{"plugins/claude/playbook/dream.md": "steps\n", "plugins/claude/playbook/old.md": "x"},
			want: []string{"stale plugins/claude/playbook/old.md"}},
		{name: "dot files in a copy folder are not copies", extra: map[string]string{"plugins/claude/playbook/dream.md": "steps\n", "plugins/claude/playbook/.gitignore": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, canon)
			writeTree(t, root, tt.extra)
			err := Check(root, testMirrors)
			if got := problems(err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems = %v (err %v), want %v", got, err, tt.want)
			}
			if tt.want == nil && err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
	// A missing canonical folder is an error, not a pass.
	if err := Check(t.TempDir(), testMirrors); err == nil {
		t.Error("Check passed without canonical files")
	}
}

func TestSync(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, canon)
	writeTree(t, root, map[string]string{
		"plugins/claude/skills/memory/SKILL.md": "drifted\n",
		"plugins/claude/skills/old/SKILL.md":    "stale\n",
	})
	changed, err := Sync(root, testMirrors, false)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(changed)
	want := []string{"plugins/claude/playbook/dream.md", "plugins/claude/skills/dream/SKILL.md", "plugins/claude/skills/memory/SKILL.md", "plugins/claude/skills/old/SKILL.md"}
	if !reflect.DeepEqual(changed, want) {
		t.Errorf("changed = %v, want %v", changed, want)
	}
	if err := Check(root, testMirrors); err != nil {
		t.Errorf("after sync: %v", err)
	}
	// plugins/pi does not exist: sync does not invent it unless asked.
	if _, err := os.Stat(filepath.Join(root, "plugins", "pi")); !os.IsNotExist(err) {
		t.Errorf("sync created plugins/pi: %v", err)
	}
	if changed, err := Sync(root, testMirrors, false); err != nil || len(changed) != 0 {
		t.Errorf("second sync changed %v, %v", changed, err)
	}
	changed, err = Sync(root, testMirrors, true)
	if err != nil || len(changed) != 2 {
		t.Errorf("sync -create changed %v, %v", changed, err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "plugins", "pi", "skills", "dream", "SKILL.md"))
	if string(b) != "dream\n" {
		t.Errorf("pi copy = %q", b)
	}
	if err := Check(root, testMirrors); err != nil {
		t.Errorf("after sync -create: %v", err)
	}
}

// TestRepositoryCopies is the guard the issue asks for: it fails as soon as
// any copy in this repository drifts from its canonical file.
func TestRepositoryCopies(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(root, Mirrors); err != nil {
		t.Fatal(err)
	}
}
