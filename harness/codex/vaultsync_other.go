//go:build !linux && !darwin

package codex

// VaultSyncEnv turns the background vault sync at SessionStart off when
// set to "off" (docs/vault.md).
const VaultSyncEnv = "NOTESOUP_VAULT_SYNC"

// startVaultSync does nothing here: run notesoup vault sync from a timer.
func startVaultSync() {}
