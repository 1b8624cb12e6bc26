// notesoup for the Pi coding agent: the entry Pi loads (package.json
// pi.extensions). `pi install` registers the package for every pi run, and
// Pi refuses to start when an extension throws while loading, so this file
// must load whatever state the package folder is in: it imports only Node's
// own modules, checks that the files the extension needs are there, and only
// then loads the wiring (src/wire.ts, which imports the build-time copy of
// plugins/common in src/common). When something is missing it registers no
// tool and no hook, says what is missing and how to fix it (stderr at load,
// the UI at session start, and /notesoup), and Pi runs as without it.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** DISABLE_ENV turns the whole extension off (presence-style, like DISABLE_COMPACT). */
export const DISABLE_ENV = "NOTESOUP_DISABLED";

/** FLAG is the CLI flag naming the binary: pi --notesoup-bin /path. */
export const FLAG = "notesoup-bin";

/** ToolDef is one generated tool definition (plugins/pi/gen). */
export interface ToolDef {
	name: string;
	label: string;
	description: string;
	parameters: Record<string, unknown>;
	helper?: string;
}

/**
 * COMMON_FILES are the shared modules the build copies into src/common
 * (plugins/common/build.mk); wire.ts cannot load without them.
 */
export const COMMON_FILES = ["format.ts", "helper-client.ts", "step-tracker.ts"];

/** MAX_TOOLS_BYTES bounds the read of generated/tools.json (it is ~20 KB). */
const MAX_TOOLS_BYTES = 4 << 20;

/** pluginRoot is plugins/pi (this file is plugins/pi/src/index.ts). */
export function pluginRoot(): string {
	return join(dirname(fileURLToPath(import.meta.url)), "..");
}

/** FIX is how every missing piece is put back, in a checkout and in a package. */
const FIX = "run `make pi-build` in the notesoup checkout (or reinstall the package built by it)";

/**
 * loadTools reads the tool definitions generated from the Go ones. It
 * throws an Error that names the file and the fix; notesoup() turns that
 * into the degraded load instead of letting it reach Pi.
 */
export function loadTools(root: string): ToolDef[] {
	const path = join(root, "generated", "tools.json");
	let raw: string;
	try {
		const st = statSync(path);
		if (!st.isFile()) throw new Error("not a regular file");
		if (st.size > MAX_TOOLS_BYTES) throw new Error(`larger than ${MAX_TOOLS_BYTES} bytes`);
		raw = readFileSync(path, "utf8");
	} catch (e) {
		throw new Error(`${path} is missing or unreadable (${(e as Error).message}); ${FIX}, which generates it (go run ./plugins/pi/gen -out ${path})`);
	}
	let f: any;
	try {
		f = JSON.parse(raw);
	} catch (e) {
		throw new Error(`${path} is not JSON (${(e as Error).message}); ${FIX}, which regenerates it`);
	}
	const tools = f?.tools;
	if (!Array.isArray(tools) || tools.length === 0) throw new Error(`${path} lists no tools; ${FIX}, which regenerates it`);
	for (const t of tools) {
		if (typeof t?.name !== "string" || typeof t?.description !== "string" || typeof t?.parameters !== "object" || t.parameters === null) {
			throw new Error(`${path} holds a tool without a name, description or parameters; ${FIX}, which regenerates it`);
		}
	}
	return tools as ToolDef[];
}

/** missingCommon names the shared modules absent from src/common. */
export function missingCommon(root: string): string[] {
	const dir = join(root, "src", "common");
	return COMMON_FILES.filter((f) => {
		try {
			return !statSync(join(dir, f)).isFile();
		} catch {
			return true;
		}
	}).map((f) => join(dir, f));
}

/**
 * Wiring is what src/wire.ts exports; loaded with a dynamic import so that
 * a missing or broken src/common is a problem reported here, not a failure
 * of Pi's start.
 */
export type Wiring = { wire(pi: ExtensionAPI, tools: ToolDef[], root: string, log: (m: string) => void): void };

/** LoadWiring loads the wiring module; tests inject a failing one. */
export type LoadWiring = () => Promise<Wiring>;

const loadWiring: LoadWiring = () => import("./wire.ts") as Promise<Wiring>;

function log(message: string): void {
	process.stderr.write(message.startsWith("notesoup:") ? `${message}\n` : `notesoup: ${message}\n`);
}

/**
 * problem returns why the extension cannot run from root (undefined when
 * everything it needs is there).
 */
export function problem(root: string): string | undefined {
	const common = missingCommon(root);
	if (common.length > 0) return `the shared modules ${common.join(", ")} are missing; ${FIX}, which copies plugins/common/src into src/common`;
	try {
		loadTools(root);
	} catch (e) {
		return (e as Error).message;
	}
	return undefined;
}

/**
 * degrade registers only what tells the person the extension is off and
 * why: a notice at session start and a /notesoup command that repeats it.
 * No tool, no hook that touches a turn.
 */
export function degrade(pi: ExtensionAPI, why: string, say: (m: string) => void = log): void {
	const text = `notesoup: the extension is off for this run: ${why}. Pi runs without notesoup's tools, boot block and resets until then.`;
	say(text);
	pi.on("session_start", async (_ev, ctx) => {
		if (ctx.hasUI) ctx.ui.notify(text, "warning");
	});
	pi.registerCommand("notesoup", {
		description: "notesoup is off: says why and how to fix it",
		handler: async (_args, ctx) => {
			if (ctx.hasUI) ctx.ui.notify(text, "warning");
			else say(text);
		},
	});
}

/**
 * notesoupExtension is the factory with its inputs injectable (the plugin
 * folder, the wiring loader, the log), for tests.
 */
export async function notesoupExtension(pi: ExtensionAPI, root = pluginRoot(), load: LoadWiring = loadWiring, say: (m: string) => void = log): Promise<void> {
	// Registered whatever happens next: Pi refuses a flag no extension
	// registered, so a disabled or broken extension would otherwise make
	// `pi --notesoup-bin …` fail to start.
	pi.registerFlag(FLAG, { type: "string", description: "path of the notesoup binary (else $NOTESOUP_BIN, the plugin-local build, PATH)" });
	if (process.env[DISABLE_ENV] !== undefined) {
		// No tools, no hooks: Pi behaves as without the extension.
		say(`${DISABLE_ENV} is set: the extension is off`);
		return;
	}
	const why = problem(root);
	if (why) {
		degrade(pi, why, say);
		return;
	}
	let wiring: Wiring;
	try {
		wiring = await load();
	} catch (e) {
		degrade(pi, `its code did not load (${(e as Error)?.message ?? String(e)}); ${FIX}`, say);
		return;
	}
	try {
		wiring.wire(pi, loadTools(root), root, say);
	} catch (e) {
		// Registration failed half-way: what was registered stays (Pi has
		// no unregister), but the person is told, and Pi still starts.
		say(`notesoup: the extension failed while loading (${(e as Error)?.message ?? String(e)}); ${FIX}`);
	}
}

export default function notesoup(pi: ExtensionAPI): Promise<void> {
	return notesoupExtension(pi);
}
