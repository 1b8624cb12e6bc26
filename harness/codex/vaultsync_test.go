//go:build linux || darwin

package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStartVaultSync: the SessionStart sync runs the notesoup binary with
// vault sync in its own session and is not waited for; NOTESOUP_VAULT_SYNC=off
// starts nothing.
func TestStartVaultSync(t *testing.T) {
	tests := []struct {
		name string
		env  string
		want bool
	}{
		{"on by default", "", true},
		{"off", "off", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "ran")
			// A stand-in binary that records its arguments and whether it
			// leads its own session (its pid is its session id).
			script := filepath.Join(dir, "notesoup")
			body := "#!/bin/sh\nsid=$(ps -o sid= -p $$ | tr -d ' ')\necho \"$* sid=$sid pid=$$\" > " + marker + ".tmp && mv " + marker + ".tmp " + marker + "\n"
			if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
				t.Fatal(err)
			}
			old := vaultSyncExe
			asked := false
			vaultSyncExe = func() (string, error) { asked = true; return script, nil }
			t.Cleanup(func() { vaultSyncExe = old })
			t.Setenv(VaultSyncEnv, tc.env)
			startVaultSync()
			var got []byte
			// Bounded generously; the assertion is on what ran, not when.
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if got, _ = os.ReadFile(marker); len(got) > 0 || !tc.want {
					break
				}
			}
			if asked != tc.want {
				t.Fatalf("the binary was looked up: %v, want %v", asked, tc.want)
			}
			if !tc.want {
				return
			}
			line := strings.TrimSpace(string(got))
			if !strings.HasPrefix(line, "vault sync --quiet --wait 2s ") {
				t.Fatalf("ran with %q", line)
			}
			var sid, pid string
			for _, f := range strings.Fields(line) {
				if v, ok := strings.CutPrefix(f, "sid="); ok {
					sid = v
				}
				if v, ok := strings.CutPrefix(f, "pid="); ok {
					pid = v
				}
			}
			if sid == "" || sid != pid {
				t.Fatalf("the sync does not lead its own session: %q", line)
			}
		})
	}
}
