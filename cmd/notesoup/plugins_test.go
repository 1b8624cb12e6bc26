//go:build !light

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginsListsIgnoredFiles: a notesoup-harness-* file in the plugin
// directory that is not executable used to be left out of `notesoup
// plugins` without a word. It is listed as ignored with the reason, in the
// text and the JSON listing, next to the built-in harnesses.
func TestPluginsListsIgnoredFiles(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	t.Setenv("NOTESOUP_PLUGIN_DIR", dir)
	noexec := filepath.Join(dir, "notesoup-harness-mine")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(noexec, 0o644); err != nil {
		t.Fatal(err)
	}
	// A name a person's terminal must not interpret.
	evil := filepath.Join(dir, "notesoup-harness-x\x1b[31m")
	if err := os.Mkdir(evil, 0o755); err != nil {
		t.Fatal(err)
	}

	out, errs, code := runCLI(t, "plugins")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"mine", "ignored", noexec, "not executable", "chmod +x " + noexec, "claude", "a directory"} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("listing carries a raw escape from a file name:\n%q", out)
	}

	out, errs, code = runCLI(t, "plugins", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var rows []pluginRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	var got *pluginRow
	for i := range rows {
		if rows[i].Source == noexec {
			got = &rows[i]
		}
	}
	if got == nil || got.Name != "mine" || got.Status != "ignored" || !strings.Contains(got.Reason, "not executable") {
		t.Errorf("--json row for %s = %+v; want name mine, status ignored and the reason", noexec, got)
	}
}
