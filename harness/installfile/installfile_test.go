package installfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

// TestApply: a new file is written, a same one left alone, a dry run
// previews and writes nothing, a removal deletes, and a file changed
// between Plan and Apply is refused.
func TestApply(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "settings.json")
	edit := func(b []byte) func([]byte) ([]byte, []string, error) {
		return func([]byte) ([]byte, []string, error) { return b, nil, nil }
	}

	// Dry run: previewed, nothing written.
	c, _, err := Plan(path, edit([]byte("{}\n")))
	if err != nil {
		t.Fatal(err)
	}
	rep := harness.InstallReport{DryRun: true}
	if err := Apply(&rep, c); err != nil {
		t.Fatal(err)
	}
	if len(rep.Preview) != 1 || rep.Preview[0].Content != "{}\n" {
		t.Fatalf("preview %+v", rep.Preview)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote %s (%v)", path, err)
	}

	// Written, mode 0600, folder made.
	rep = harness.InstallReport{}
	if err := Apply(&rep, c); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{}\n" || len(rep.Changed) != 1 {
		t.Fatalf("wrote %q, changed %v", b, rep.Changed)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}

	// Same content: up to date, nothing changed.
	c, _, _ = Plan(path, edit([]byte("{}\n")))
	rep = harness.InstallReport{}
	if err := Apply(&rep, c); err != nil || len(rep.Changed) != 0 || !strings.Contains(strings.Join(rep.Messages, "\n"), "up to date") {
		t.Fatalf("up to date: %v %+v", err, rep)
	}

	// Changed by someone else between Plan and Apply: refused.
	c, _, _ = Plan(path, edit([]byte("{\"a\": 1}\n")))
	os.WriteFile(path, []byte("{\"theirs\": 1}\n"), 0o600)
	if err := Apply(&harness.InstallReport{}, c); err == nil || !strings.Contains(err.Error(), "changed while notesoup was editing") {
		t.Fatalf("a file changed under the edit was not refused: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{\"theirs\": 1}\n" {
		t.Fatalf("their edit lost: %q", b)
	}

	// Removal.
	c, _, _ = Plan(path, edit(nil))
	c.Remove = true
	if err := Apply(&harness.InstallReport{}, c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("not removed: %v", err)
	}
	// Nothing there, nothing to do.
	c, _, _ = Plan(path, edit(nil))
	rep = harness.InstallReport{}
	if err := Apply(&rep, c); err != nil || len(rep.Changed) != 0 {
		t.Fatalf("absent file: %v %+v", err, rep)
	}
}

// TestLinkWrittenThrough: a settings file that is a link is written
// through, and the link kept.
func TestLinkWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte("{}\n"), 0o644)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	c, _, err := Plan(link, func([]byte) ([]byte, []string, error) { return []byte("{\"x\": 1}\n"), nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(&harness.InstallReport{}, c); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(real); string(b) != "{\"x\": 1}\n" {
		t.Fatalf("target holds %q", b)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode not kept: %v", st.Mode())
	}
}

// TestRefusesNonRegular: a FIFO in the file's place is refused, not read.
func TestRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "settings.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Plan(filepath.Join(dir, "settings.json"), func(b []byte) ([]byte, []string, error) { return b, nil, nil }); err == nil {
		t.Fatal("a directory in the file's place was read")
	}
}
