// Tests of the helper client: binary discovery order and refusals, and
// real calls to the plugin-local notesoup binary (make pi-build).
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_OUTPUT_BYTES } from "../src/common/helper-client.ts";
import { callHelper, findBinary, HelperError } from "../src/helper.ts";
import { BIN } from "./bin.ts";

function fakeBin(dir: string, name = "notesoup"): string {
	const p = join(dir, name);
	writeFileSync(p, "#!/bin/sh\nexit 0\n");
	chmodSync(p, 0o755);
	return p;
}

test("findBinary: flag, then NOTESOUP_BIN, then plugin-local, then PATH", () => {
	const d = mkdtempSync(join(tmpdir(), "pi-find-"));
	const flag = fakeBin(d, "flag-bin");
	const env = fakeBin(d, "env-bin");
	const local = fakeBin(d, "local-bin");
	const onPath = mkdtempSync(join(tmpdir(), "pi-path-"));
	const pathBin = fakeBin(onPath);
	const cases: { name: string; opts: Parameters<typeof findBinary>[0]; want: string; source: string }[] = [
		{ name: "flag wins", opts: { flag, env: { NOTESOUP_BIN: env, PATH: onPath }, local }, want: flag, source: "flag" },
		{ name: "env next", opts: { env: { NOTESOUP_BIN: env, PATH: onPath }, local }, want: env, source: "env" },
		{ name: "plugin-local next", opts: { env: { PATH: onPath }, local }, want: local, source: "plugin" },
		{ name: "PATH last", opts: { env: { PATH: `/nonexistent:${onPath}` }, local: join(d, "missing") }, want: pathBin, source: "path" },
	];
	for (const c of cases) {
		const got = findBinary(c.opts);
		assert.equal(got.path, c.want, c.name);
		assert.equal(got.source, c.source, c.name);
	}
});

test("findBinary: says clearly what is wrong and how to fix it", () => {
	const d = mkdtempSync(join(tmpdir(), "pi-find-"));
	const notExec = join(d, "plain");
	writeFileSync(notExec, "x");
	const cases: { name: string; opts: Parameters<typeof findBinary>[0]; want: RegExp }[] = [
		{ name: "bad flag is not skipped", opts: { flag: notExec, env: { PATH: "" } }, want: /--notesoup-bin .*not an executable file/ },
		{ name: "bad env is not skipped", opts: { env: { NOTESOUP_BIN: join(d, "nope"), PATH: "" } }, want: /NOTESOUP_BIN=.*not an executable file/ },
		{ name: "nothing found", opts: { env: { PATH: d }, local: join(d, "missing") }, want: /notesoup binary not found: pass --notesoup-bin .*NOTESOUP_BIN.*make pi-build.*PATH/ },
	];
	for (const c of cases) {
		assert.throws(() => findBinary(c.opts), (e: unknown) => e instanceof HelperError && e.code === "no_binary" && c.want.test(e.message), c.name);
	}
});

test("callHelper: answers and refusals of the real binary", async () => {
	const v = await callHelper(BIN, { op: "version" });
	assert.equal(v.protocol, 1);
	await assert.rejects(callHelper(BIN, { op: "notes.read", caller: { harness: "pi", cwd: tmpdir() }, args: { name: "../x.md" } }), (e: unknown) => e instanceof HelperError && e.code === "invalid_name" && e.field === "args.name");
	await assert.rejects(callHelper(BIN, { op: "no.such.op" }), (e: unknown) => e instanceof HelperError && e.code === "unknown_op");
});

test("callHelper: a binary that does not answer in JSON is reported with its stderr", async () => {
	const d = mkdtempSync(join(tmpdir(), "pi-bad-"));
	const p = join(d, "notesoup");
	writeFileSync(p, "#!/bin/sh\necho broken >&2\nexit 2\n");
	chmodSync(p, 0o755);
	await assert.rejects(callHelper(p, { op: "version" }), (e: unknown) => e instanceof HelperError && e.code === "no_answer" && /exited 2 without a JSON answer: broken/.test(e.message));
	await assert.rejects(callHelper(join(d, "missing"), { op: "version" }), (e: unknown) => e instanceof HelperError && e.code === "spawn_failed");
});

test("callHelper: an answer past the output bound is refused, not parsed", async () => {
	// 4 MiB and one byte of blanks, then a valid answer: whole, it would parse.
	const d = mkdtempSync(join(tmpdir(), "pi-big-"));
	const p = join(d, "notesoup");
	writeFileSync(p, `#!/bin/sh\nhead -c ${MAX_OUTPUT_BYTES + 1} /dev/zero | tr '\\0' ' '\nprintf '{"v":1,"ok":true,"result":1}'\n`);
	chmodSync(p, 0o755);
	await assert.rejects(callHelper(p, { op: "version" }), (e: unknown) => e instanceof HelperError && e.code === "no_answer" && /answered more than 4194304 bytes/.test(e.message));
});
