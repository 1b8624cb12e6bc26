// The background vault sync at session start (src/vaultsync.ts): notesoup
// vault sync with a short lock wait, detached, unref'd and not awaited;
// NOTESOUP_VAULT_SYNC=off starts nothing; a missing binary or a failed
// spawn never throws into Pi.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SpawnOptions } from "node:child_process";
import { startVaultSync, type Spawner } from "../src/vaultsync.ts";

function recorder(fail?: Error) {
	const calls: { cmd: string; args: readonly string[]; opts: SpawnOptions; unref: boolean; onError: boolean }[] = [];
	const spawner: Spawner = (cmd, args, opts) => {
		if (fail) throw fail;
		const c = { cmd, args, opts, unref: false, onError: false };
		calls.push(c);
		return { on: () => void (c.onError = true), unref: () => void (c.unref = true) };
	};
	return { calls, spawner };
}

test("starts notesoup vault sync detached, unref'd, with no stdio", () => {
	const r = recorder();
	assert.equal(startVaultSync(() => "/x/bin/notesoup", {}, r.spawner), true);
	assert.equal(r.calls.length, 1);
	const c = r.calls[0]!;
	assert.equal(c.cmd, "/x/bin/notesoup");
	assert.deepEqual(c.args, ["vault", "sync", "--quiet", "--wait", "2s"]);
	assert.equal(c.opts.detached, true);
	assert.equal(c.opts.stdio, "ignore");
	assert.equal(c.unref, true, "the child must not keep Pi alive");
	assert.equal(c.onError, true, "a failed start must not become an uncaught error");
});

test("the sync switch and failures", async (t) => {
	for (const tc of [
		{ name: "NOTESOUP_VAULT_SYNC=off: no spawn", env: { NOTESOUP_VAULT_SYNC: "off" }, bin: () => "/x/notesoup", fail: undefined, want: false, spawned: 0 },
		{ name: "another value: spawned", env: { NOTESOUP_VAULT_SYNC: "on" }, bin: () => "/x/notesoup", fail: undefined, want: true, spawned: 1 },
		{ name: "no notesoup binary: no throw", env: {}, bin: (): string => { throw new Error("no binary"); }, fail: undefined, want: false, spawned: 0 },
		{ name: "spawn throws: no throw", env: {}, bin: () => "/x/notesoup", fail: new Error("EACCES"), want: false, spawned: 0 },
	]) {
		await t.test(tc.name, () => {
			const r = recorder(tc.fail);
			assert.equal(startVaultSync(tc.bin, tc.env, r.spawner), tc.want);
			assert.equal(r.calls.length, tc.spawned);
		});
	}
});

test("a real detached child of a missing binary does not throw", async () => {
	assert.equal(startVaultSync(() => "/nonexistent/notesoup", {}), true);
	// The spawn error arrives asynchronously and is swallowed.
	await new Promise((r) => setTimeout(r, 50));
});
