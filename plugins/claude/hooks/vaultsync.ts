// The background vault sync at session start (docs/vault.md): the mod asks
// the plugin-local notesoup to copy this machine's transcripts into the
// vault before Claude Code's cleanupPeriodDays deletes them. The engine
// waits for a child's output and ends it with the module, so notesoup
// detaches the copy itself (`vault sync --background`: its own session, no
// output) and this call returns as soon as that has started. The source
// gate (plugins/claude/gate) allows exactly this argv, in this file.
import type { EngineInterface } from 'claude-code'
import { notesoupBin } from './helper'

/** Bounds the start of the detached sync (the copy itself is not waited for). */
export const VAULT_SYNC_START_MS = 10_000

/**
 * Starts the background sync and returns at once, never an exception and
 * never a wait: the session does not depend on the vault, and a missing or
 * broken notesoup costs only this copy.
 */
export function startVaultSync($: EngineInterface): void {
  void (async () => {
    try {
      // NOTESOUP_VAULT_SYNC=off turns it off (the engine wants the literal name).
      if ((await $.env.get('NOTESOUP_VAULT_SYNC')) === 'off') return
      await $.process.run([notesoupBin($), 'vault', 'sync', '--background', '--quiet', '--wait', '2s'], { timeoutMs: VAULT_SYNC_START_MS })
    } catch {
      // Nothing to report: the next session start tries again.
    }
  })()
}
