//go:build linux || darwin

package codex

import (
	"os"
	"os/exec"
	"syscall"
)

// VaultSyncEnv turns the background vault sync at SessionStart off when
// set to "off" (docs/vault.md).
const VaultSyncEnv = "NOTESOUP_VAULT_SYNC"

// vaultSyncExe is the notesoup binary the sync runs; tests replace it.
var vaultSyncExe = os.Executable

// startVaultSync starts `notesoup vault sync --quiet` in the background,
// so the vault keeps this machine's transcripts before a harness deletes
// them, at no cost to the session's start: the child has its own session
// (Codex ending the hook's process group does not end it), no stdin,
// stdout or stderr (Codex waits for none of them), and is not waited for.
// Its lock wait is short: a sync already running copies the same files.
// Failing to start it costs only that copy, so nothing is reported.
func startVaultSync() {
	if os.Getenv(VaultSyncEnv) == "off" {
		return
	}
	exe, err := vaultSyncExe()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, "vault", "sync", "--quiet", "--wait", "2s")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return
	}
	cmd.Process.Release()
}
