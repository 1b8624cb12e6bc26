package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	root := t.TempDir()
	for p, body := range map[string]string{
		"skills/memory/SKILL.md":        "memory\n",
		"playbook/dream.md":             "steps\n",
		"plugins/claude/manifest.json":  "{}",
		"plugins/claude/skills/x/a.txt": "stale",
	} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(body), 0o644)
	}
	steps := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{args: []string{"-check"}, code: 1, stderr: "no canonical file"},
		{args: nil, code: 0, stdout: "updated plugins/claude/skills/memory/SKILL.md"},
		{args: []string{"-check"}, code: 0, stdout: "match"},
		{args: nil, code: 0, stdout: "already up to date"},
		{args: []string{"-bogus"}, code: 2},
	}
	for _, s := range steps {
		var out, errb bytes.Buffer
		code := run(append([]string{"-root", root}, s.args...), &out, &errb)
		if code != s.code || !strings.Contains(out.String(), s.stdout) || !strings.Contains(errb.String(), s.stderr) {
			t.Errorf("sync %v: exit %d, stdout %q, stderr %q; want exit %d with %q / %q", s.args, code, out.String(), errb.String(), s.code, s.stdout, s.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "plugins", "pi")); !os.IsNotExist(err) {
		t.Errorf("sync created plugins/pi without -create")
	}
}
