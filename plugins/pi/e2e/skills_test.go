//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/testkit/modelserver"
)

// sameTree fails unless dir holds exactly canon's files, byte for byte.
func sameTree(t *testing.T, canon, dir string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(canon, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(canon, p)
		seen[rel] = true
		want, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Errorf("%s: %v (make pi-build copies it)", filepath.Join(dir, rel), err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s; edit the canonical file, make pi-build copies it", filepath.Join(dir, rel), p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if rel, _ := filepath.Rel(dir, p); !seen[rel] {
				t.Errorf("%s is not in %s", p, canon)
			}
		}
		return nil
	})
}

// TestSkillsShippedAndLoaded: the package carries the memory and dream
// skills and the dream playbook byte-identical to skills/ and playbook/,
// and pi, with the package installed (pi install <path>), lists both skills
// to the model with their files in the package.
func TestSkillsShippedAndLoaded(t *testing.T) {
	e := setup(t, "plain.json", nil)
	sameTree(t, filepath.Join(e.repo, "skills"), filepath.Join(e.ext, "skills"))
	sameTree(t, filepath.Join(e.repo, "playbook"), filepath.Join(e.ext, "playbook"))

	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	opts := modelserver.AgentOptions{PiContextWindow: contextWindow, Env: []string{"NOTESOUP_HOME=" + e.notesHome}}
	install, err := e.w.Command(ctx, modelserver.Pi, e.pi, e.srv.URL(), opts, "install", e.ext)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("pi install %s: %v\n%s", e.ext, err, out)
	}
	run, err := e.w.Command(ctx, modelserver.Pi, e.pi, e.srv.URL(), opts, "-nc", "--provider", "fake", "--model", modelserver.DefaultModel, "-p", "Say hello")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	bodies := e.bodies()
	if len(bodies) != 1 {
		t.Fatalf("model requests = %d, want 1", len(bodies))
	}
	for _, skill := range []string{"memory", "dream"} {
		loc := filepath.Join(e.ext, "skills", skill, "SKILL.md")
		if !strings.Contains(bodies[0], "<name>"+skill+"</name>") || !strings.Contains(bodies[0], loc) {
			t.Errorf("the request does not list the %s skill at %s:\n%.4000s", skill, loc, bodies[0])
		}
	}
}
