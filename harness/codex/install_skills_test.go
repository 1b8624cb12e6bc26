package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

// TestSkillsAreTheCanonicalCopies: what install writes into the Codex home
// is byte for byte the repository's skills/ and playbook/, and every file
// of those is written (a new skill there fails here until it is embedded).
func TestSkillsAreTheCanonicalCopies(t *testing.T) {
	var canonical []string
	for _, dir := range []string{"skills", "playbook"} {
		filepath.WalkDir(filepath.Join("..", "..", dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(filepath.Join("..", ".."), p)
				canonical = append(canonical, filepath.ToSlash(rel))
			}
			return err
		})
	}
	written := slices.Sorted(slices.Values(skillPaths))
	if slices.Sort(canonical); !slices.Equal(canonical, written) {
		t.Errorf("the repository holds %v, install writes %v", canonical, written)
	}
	home := t.TempDir()
	if _, err := Install(harness.InstallRequest{Home: home, Binary: testBin}); err != nil {
		t.Fatal(err)
	}
	for _, rel := range canonical {
		want, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(home, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s in the Codex home is not the repository's (%v)", rel, err)
		}
	}
}

// TestUninstallKeepsAnEditedSkill: a skill the person edited survives
// uninstall (and is reported), the unedited ones go, and install keeps an
// edited copy instead of overwriting it.
func TestUninstallKeepsAnEditedSkill(t *testing.T) {
	home := t.TempDir()
	req := harness.InstallRequest{Home: home, Binary: testBin}
	if _, err := Install(req); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(home, "skills", "memory", "SKILL.md")
	mine := []byte("my own memory skill\n")
	if err := os.WriteFile(edited, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Install(req)
	if err != nil || !strings.Contains(strings.Join(rep.Messages, "\n"), edited+": differs from notesoup's copy, kept") {
		t.Fatalf("second install: %q, %v", rep.Messages, err)
	}
	rep, err = Uninstall(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(edited); !bytes.Equal(got, mine) {
		t.Errorf("the edited skill was not kept: %q", got)
	}
	if !strings.Contains(strings.Join(rep.Messages, "\n"), edited+": differs from notesoup's copy (edited?), kept") {
		t.Errorf("uninstall does not report the kept skill: %q", rep.Messages)
	}
	for _, gone := range []string{"skills/dream", "playbook"} {
		if _, err := os.Stat(filepath.Join(home, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there after uninstall: %v", gone, err)
		}
	}
}
