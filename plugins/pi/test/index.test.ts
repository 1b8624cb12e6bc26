// Tests of the entry Pi loads (src/index.ts): whatever is missing from the
// package folder, loading never throws (Pi would refuse to start), registers
// no tool and says what is missing and how to fix it; bare /notesoup shows
// the usage and the status; print mode is told from Pi's arguments.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { COMMON_FILES, FLAG, notesoupExtension, type Wiring } from "../src/index.ts";
import { printMode, USAGE } from "../src/wire.ts";

/** A fake ExtensionAPI that records what the extension registers. */
function fakePi() {
	const tools: string[] = [];
	const handlers = new Map<string, any>();
	const commands = new Map<string, any>();
	const flags: string[] = [];
	const pi: any = {
		registerTool: (t: any) => tools.push(t.name),
		on: (name: string, fn: any) => handlers.set(name, fn),
		registerCommand: (name: string, c: any) => commands.set(name, c),
		registerFlag: (name: string) => flags.push(name),
		getFlag: () => undefined,
		sendMessage: () => {},
		sendUserMessage: () => {},
	};
	return { pi, tools, handlers, commands, flags };
}

/** A package folder with what the build places; without lists what to leave out. */
function pkg(without: string[]): string {
	const root = mkdtempSync(join(tmpdir(), "pi-pkg-"));
	mkdirSync(join(root, "src", "common"), { recursive: true });
	mkdirSync(join(root, "generated"));
	for (const f of COMMON_FILES) writeFileSync(join(root, "src", "common", f), "// stub\n");
	cpSync(resolve("generated", "tools.json"), join(root, "generated", "tools.json"));
	for (const w of without) rmSync(join(root, w), { force: true, recursive: true });
	return root;
}

const realWiring = () => import("../src/wire.ts") as Promise<Wiring>;

test("a broken package folder loads, offers nothing and says what is missing and how to fix it", async () => {
	const cases = [
		{ name: "no generated/tools.json", without: ["generated/tools.json"], json: undefined, load: realWiring, want: /generated\/tools\.json is missing.*make pi-build/ },
		{ name: "tools.json not JSON", without: [], json: "{", load: realWiring, want: /tools\.json is not JSON.*make pi-build/ },
		{ name: "tools.json lists no tools", without: [], json: '{"tools":[]}', load: realWiring, want: /lists no tools.*make pi-build/ },
		{ name: "no src/common", without: ["src/common"], json: undefined, load: realWiring, want: /src\/common\/format\.ts.*missing.*make pi-build/ },
		{ name: "one shared module missing", without: ["src/common/step-tracker.ts"], json: undefined, load: realWiring, want: /step-tracker\.ts are missing/ },
		{
			name: "the code does not load",
			without: [],
			json: undefined,
			load: async () => {
				throw new Error("Cannot find module './common/format.ts'");
			},
			want: /its code did not load \(Cannot find module.*make pi-build/,
		},
	];
	for (const c of cases) {
		const root = pkg(c.without);
		if (c.json !== undefined) writeFileSync(join(root, "generated", "tools.json"), c.json);
		const f = fakePi();
		const said: string[] = [];
		await assert.doesNotReject(notesoupExtension(f.pi, root, c.load as any, (m) => said.push(m)), c.name);
		assert.deepEqual(f.tools, [], `${c.name}: no tools`);
		assert.deepEqual([...f.handlers.keys()], ["session_start"], `${c.name}: only the notice at session start`);
		assert.deepEqual(f.flags, [FLAG], `${c.name}: the flag stays known, so pi --notesoup-bin still starts`);
		assert.equal(said.length, 1, c.name);
		assert.match(said[0], c.want, c.name);
		assert.match(said[0], /extension is off/, c.name);
		// The notice reaches a UI at session start, and /notesoup repeats it.
		const notes: string[] = [];
		const ctx = { hasUI: true, ui: { notify: (m: string) => notes.push(m) } };
		await f.handlers.get("session_start")({}, ctx);
		await f.commands.get("notesoup").handler("", ctx);
		assert.deepEqual(notes, [said[0], said[0]], c.name);
	}
});

test("a complete package folder wires the generated tools", async () => {
	const f = fakePi();
	const said: string[] = [];
	await notesoupExtension(f.pi, resolve("."), realWiring, (m) => said.push(m));
	assert.deepEqual(said, []);
	assert.ok(f.tools.includes("notes_write") && f.tools.includes("empty_brain"), `tools: ${f.tools}`);
	assert.ok(f.handlers.has("session_before_compact") && f.handlers.has("session_shutdown"));
	// The package's skills are offered by the running extension only.
	assert.deepEqual(f.handlers.get("resources_discover")(), { skillPaths: [resolve("skills")] });
});

test("bare /notesoup shows the usage and the status, not the cap", async () => {
	process.env.NOTESOUP_HOME = mkdtempSync(join(tmpdir(), "pi-home-"));
	const f = fakePi();
	await notesoupExtension(f.pi, resolve("."), realWiring, () => {});
	const notes: string[] = [];
	const sid = `unit-${Math.random().toString(16).slice(2)}`;
	const ctx = {
		hasUI: true,
		ui: { notify: (m: string) => notes.push(m) },
		cwd: mkdtempSync(join(tmpdir(), "pi-cwd-")),
		model: { id: "fake-model", provider: "fake", contextWindow: 200000 },
		sessionManager: { getSessionId: () => sid, getSessionFile: () => undefined, getBranch: () => [] },
		getContextUsage: () => ({ tokens: 1000, contextWindow: 200000, percent: null }),
		isIdle: () => true,
	};
	await f.commands.get("notesoup").handler("", ctx);
	assert.equal(notes.length, 1);
	assert.ok(notes[0].startsWith(USAGE), notes[0]);
	assert.match(notes[0], /\/notesoup empty/);
	assert.match(notes[0], /Window pi:unit-[0-9a-f]+:0; no reset pending/);
	assert.doesNotMatch(notes[0], /cap off/);
	await f.commands.get("notesoup").handler("bogus", ctx);
	assert.match(notes[1], /unknown subcommand "bogus"[\s\S]*\/notesoup status/);
});

test("printMode: text print mode told from Pi's arguments", () => {
	const cases = [
		{ argv: ["node", "pi", "-p", "hi"], tty: true, want: true },
		{ argv: ["node", "pi", "--print", "hi"], tty: true, want: true },
		{ argv: ["node", "pi", "hi"], tty: false, want: true },
		{ argv: ["node", "pi", "hi"], tty: true, want: false },
		{ argv: ["node", "pi", "--mode", "json", "-p", "hi"], tty: true, want: false },
		{ argv: ["node", "pi", "--mode", "rpc"], tty: false, want: false },
		{ argv: ["node", "pi", "--mode", "text", "-p", "hi"], tty: true, want: true },
	];
	for (const c of cases) assert.equal(printMode(c.argv, c.tty), c.want, c.argv.join(" "));
});
