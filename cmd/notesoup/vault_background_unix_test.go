//go:build (linux || darwin) && !light

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVaultSyncBackground: --background starts notesoup vault sync with the
// other arguments in its own session and returns without waiting;
// NOTESOUP_VAULT_SYNC=off starts nothing.
func TestVaultSyncBackground(t *testing.T) {
	tests := []struct {
		name string
		env  string
		args []string
		want string // the child's arguments; empty: no child
	}{
		{"started detached", "", []string{"vault", "sync", "--background", "--quiet", "--wait", "2s"}, "vault sync --quiet --wait 2s"},
		{"flag anywhere", "", []string{"vault", "sync", "--quiet", "--background"}, "vault sync --quiet"},
		{"off", "off", []string{"vault", "sync", "--background", "--quiet"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("HOME", dir)
			t.Setenv("NOTESOUP_HOME", filepath.Join(dir, ".notesoup"))
			marker := filepath.Join(dir, "ran")
			// A stand-in notesoup that records its arguments and whether it
			// leads its own session (its pid is its session id).
			script := filepath.Join(dir, "notesoup")
			body := "#!/bin/sh\nsid=$(ps -o sid= -p $$ | tr -d ' ')\necho \"$* sid=$sid pid=$$\" > " + marker + ".tmp && mv " + marker + ".tmp " + marker + "\n"
			if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
				t.Fatal(err)
			}
			asked := false
			old := backgroundExe
			backgroundExe = func() (string, error) { asked = true; return script, nil }
			t.Cleanup(func() { backgroundExe = old })
			t.Setenv(vaultSyncEnv, tc.env)

			out, errs, code := runCLI(t, tc.args...)
			if code != 0 || out != "" || errs != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and silence", code, out, errs)
			}
			if asked != (tc.want != "") {
				t.Fatalf("a child was started: %v, want %v", asked, tc.want != "")
			}
			if tc.want == "" {
				return
			}
			var got []byte
			// Bounded generously; the assertion is on what ran, not when.
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && len(got) == 0; time.Sleep(20 * time.Millisecond) {
				got, _ = os.ReadFile(marker)
			}
			line := strings.TrimSpace(string(got))
			if !strings.HasPrefix(line, tc.want+" sid=") {
				t.Fatalf("the child ran with %q, want %q", line, tc.want)
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
				t.Fatalf("the child does not lead its own session: %q", line)
			}
		})
	}
}
