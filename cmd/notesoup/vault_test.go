//go:build !light

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVaultCLI: sync, status, a deleted transcript still listed and read,
// restore --dry-run, restore, and a restore refused over a different file.
func TestVaultCLI(t *testing.T) {
	home, cache := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)
	path := filepath.Join(roots[1], "-work-proj", cliSID+".jsonl")
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sel := "claude:" + cliSID

	out, errs, code := runCLI(t, append([]string{"vault", "sync", "--json"}, roots...)...)
	var st struct {
		Vault string `json:"vault"`
		New   int    `json:"new"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.New != 1 || st.Vault != filepath.Join(home, ".notesoup", "vault") {
		t.Fatalf("sync: %d %q %q", code, out, errs)
	}
	if out, _, code = runCLI(t, append([]string{"vault", "sync"}, roots...)...); code != 0 || !strings.Contains(out, "1 unchanged") {
		t.Fatalf("second sync: %d %q", code, out)
	}
	listing, _, _ := runCLI(t, append([]string{"history", "list", "--session", sel, "--oldest"}, roots...)...)

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if out, _, code = runCLI(t, "vault", "status"); code != 0 || !regexpLine(out, "claude", "1", "1") {
		t.Fatalf("status: %d %q", code, out)
	}
	if out, _, code = runCLI(t, append([]string{"history", "sessions"}, roots...)...); code != 0 || !strings.Contains(out, sel) || !strings.Contains(out, "[vault]") {
		t.Fatalf("sessions after delete: %d %q", code, out)
	}
	if out, _, code = runCLI(t, append([]string{"history", "list", "--session", sel, "--oldest"}, roots...)...); code != 0 || out != listing {
		t.Fatalf("list after delete: %d\n%s\nwant\n%s", code, out, listing)
	}

	if out, _, code = runCLI(t, append([]string{"vault", "restore", sel, "--dry-run"}, roots...)...); code != 0 || !strings.Contains(out, "would write "+path) {
		t.Fatalf("dry run: %d %q", code, out)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the dry run wrote the file")
	}
	if out, errs, code = runCLI(t, append([]string{"vault", "restore", sel}, roots...)...); code != 0 || !strings.Contains(out, "wrote "+path) {
		t.Fatalf("restore: %d %q %q", code, out, errs)
	}
	if got, _ := os.ReadFile(path); string(got) != string(original) {
		t.Fatal("restored bytes differ from the original's")
	}
	os.WriteFile(path, append(original, "{}\n"...), 0o600)
	if _, errs, code = runCLI(t, append([]string{"vault", "restore", sel}, roots...)...); code != 2 || !strings.Contains(errs, "move it away") || !strings.Contains(errs, ".bak") {
		t.Fatalf("restore over a different file: %d %q", code, errs)
	}
	if _, _, code = runCLI(t, "vault", "restore"); code != 2 {
		t.Fatalf("restore without a selector: %d", code)
	}
	if _, _, code = runCLI(t, "vault", "frobnicate"); code != 2 {
		t.Fatalf("unknown subcommand: %d", code)
	}
}

// regexpLine reports whether some line of out holds the words in order,
// separated by spaces.
func regexpLine(out string, words ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= len(words) && strings.Join(f[:len(words)], " ") == strings.Join(words, " ") {
			return true
		}
	}
	return false
}

// TestVaultStatusRetentionAndExits: status names each harness's retention
// and the next deletion; restore exits 1 for a session the vault does not
// keep and 2 on a usage error; the doctor's vault row warns while the
// vault keeps nothing and Claude Code deletes.
func TestVaultStatusRetentionAndExits(t *testing.T) {
	home, cache := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)

	out, errs, code := runCLI(t, "vault", "status")
	if code != 0 || !strings.Contains(out, "cleanupPeriodDays = 30 (default)") || !strings.Contains(out, "none known") || !strings.Contains(out, "NEXT DELETION") {
		t.Fatalf("status: %d %q %q", code, out, errs)
	}
	out, _, code = runCLI(t, "vault", "status", "--json")
	var st struct {
		Retention []struct {
			Harness string `json:"harness"`
			Known   bool   `json:"known"`
			Deletes bool   `json:"deletes"`
		} `json:"retention"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || len(st.Retention) == 0 || st.Retention[0].Harness != "claude" || !st.Retention[0].Deletes {
		t.Fatalf("status --json: %d %q", code, out)
	}
	if c := vaultDoctorCheck(t.Context()); c.Status != "warn" || c.Fix != "notesoup vault sync" {
		t.Fatalf("doctor row with an empty vault: %+v", c)
	}

	if _, _, code = runCLI(t, append([]string{"vault", "sync", "--quiet"}, roots...)...); code != 0 {
		t.Fatalf("sync: %d", code)
	}
	sel := "claude:" + cliSID
	if out, errs, code = runCLI(t, append([]string{"vault", "restore", sel, "other"}, roots...)...); code != 2 {
		t.Fatalf("restore with two selectors: %d %q %q; want 2", code, out, errs)
	}
	// A session the vault does not keep: another fixture, never synced.
	other := copyClaudeFixture(t, "basic.jsonl", "0b5e8a61-7c1d-4f3e-9a2b-0000000000ff")
	if out, errs, code = runCLI(t, append([]string{"vault", "restore", "claude:0b5e8a61-7c1d-4f3e-9a2b-0000000000ff"}, other...)...); code != 1 || !strings.Contains(errs, "is not in the vault") {
		t.Fatalf("restore of a session the vault does not keep: %d %q %q; want 1", code, out, errs)
	}
	if c := vaultDoctorCheck(t.Context()); c.Status != "ok" || !strings.Contains(c.Detail, "1 sessions kept") {
		t.Fatalf("doctor row after a sync: %+v", c)
	}
}
