// The background vault sync at session start (docs/vault.md): Pi's
// sessions are copied into notesoup's vault before anything deletes them.
// The copy runs detached (its own process group, no stdio, unref'd) and is
// never awaited, so it costs the session's start nothing and outlives a
// short `pi -p`.
import { spawn, type SpawnOptions } from "node:child_process";

/** VAULT_SYNC_ENV set to "off" turns the background sync off. */
export const VAULT_SYNC_ENV = "NOTESOUP_VAULT_SYNC";

/** VAULT_SYNC_ARGS is what notesoup runs; a short lock wait, since a sync already running copies the same files. */
export const VAULT_SYNC_ARGS: readonly string[] = ["vault", "sync", "--quiet", "--wait", "2s"];

/** Spawner is child_process.spawn's shape as used here (tests replace it). */
export type Spawner = (cmd: string, args: readonly string[], opts: SpawnOptions) => { on(event: "error", fn: (e: Error) => void): unknown; unref(): void };

/**
 * startVaultSync starts `notesoup vault sync` detached and returns whether
 * it started. It never throws and never waits: a missing notesoup (bin
 * throws) or a failed start costs only this copy, and the next session
 * start tries again.
 */
export function startVaultSync(bin: () => string, env: NodeJS.ProcessEnv = process.env, spawner: Spawner = spawn): boolean {
	if (env[VAULT_SYNC_ENV] === "off") return false;
	try {
		const child = spawner(bin(), VAULT_SYNC_ARGS, { detached: true, stdio: "ignore", env });
		child.on("error", () => {});
		child.unref();
		return true;
	} catch {
		return false;
	}
}
