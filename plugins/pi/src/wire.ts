// notesoup for the Pi coding agent: the notes tools, history tools,
// empty_brain and get_context_remaining, the boot block at the start of
// every window, the budget warning, and clean resets through Pi's own
// compaction. Every decision is the notesoup binary's (helper protocol);
// this file only wires Pi's extension API to src/integration.ts.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { errText } from "./common/format.ts";
import { callHelper, findBinary, type Found, HelperError } from "./helper.ts";
import { Integration } from "./integration.ts";

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

/** pluginRoot is plugins/pi (this file is plugins/pi/src/index.ts). */
export function pluginRoot(): string {
	return join(dirname(fileURLToPath(import.meta.url)), "..");
}

/** loadTools reads the tool definitions generated from the Go ones. */
export function loadTools(root: string): ToolDef[] {
	const path = join(root, "generated", "tools.json");
	let raw: string;
	try {
		raw = readFileSync(path, "utf8");
	} catch {
		throw new Error(`notesoup: ${path} is missing; generate it with \`make pi-build\` (go run ./plugins/pi/gen -out ${path})`);
	}
	const f = JSON.parse(raw);
	if (!Array.isArray(f?.tools) || f.tools.length === 0) throw new Error(`notesoup: ${path} lists no tools; regenerate it with \`make pi-build\``);
	return f.tools as ToolDef[];
}

function log(message: string): void {
	process.stderr.write(message.startsWith("notesoup:") ? `${message}\n` : `notesoup: ${message}\n`);
}

export default function notesoup(pi: ExtensionAPI): void {
	if (process.env[DISABLE_ENV] !== undefined) {
		// No tools, no hooks: Pi behaves as without the extension.
		log(`${DISABLE_ENV} is set: the extension is off`);
		return;
	}
	const root = pluginRoot();
	const tools = loadTools(root);
	pi.registerFlag(FLAG, { type: "string", description: "path of the notesoup binary (else $NOTESOUP_BIN, the plugin-local build, PATH)" });

	let found: Found | undefined;
	const binary = (): Found => {
		if (!found) {
			const flag = pi.getFlag(FLAG);
			found = findBinary({ flag: typeof flag === "string" ? flag : undefined, local: join(root, "bin", "notesoup") });
		}
		return found;
	};
	const integ = new Integration((req, signal) => callHelper(binary().path, req, signal), pi, log);

	// Hooks report failures on stderr and never break Pi's own flow.
	// The handler's type is any: each Pi event has its own handler type, and
	// these wrappers only forward to typed Integration methods.
	const hook = <E>(name: string, fn: (ev: E, ctx: ExtensionContext) => Promise<unknown>): any =>
		async (ev: E, ctx: ExtensionContext) => {
			try {
				return await integ.guard(fn(ev, ctx));
			} catch (e) {
				log(`${name}: ${errText(e)}`);
				return undefined;
			}
		};

	for (const t of tools) {
		pi.registerTool({
			name: t.name,
			label: t.label,
			description: t.description,
			parameters: t.parameters as any,
			async execute(_toolCallId, params: any, signal, _onUpdate, ctx) {
				let r: { text: string; data?: unknown; terminate?: boolean };
				if (t.name === "empty_brain") r = await integ.emptyBrain(params ?? {}, ctx);
				else if (t.name === "get_context_remaining") r = await integ.contextReport(ctx);
				else if (t.helper) r = await integ.tool(t.helper, params, ctx, signal);
				else throw new HelperError("unknown_tool", `tool ${t.name} has no helper operation; regenerate generated/tools.json`);
				return { content: [{ type: "text", text: r.text }], details: r.data ?? {}, terminate: r.terminate };
			},
		});
	}

	pi.on("session_start", hook("session_start", (_ev, ctx) => integ.sessionStart(ctx)));
	pi.on("input", async (ev, ctx) => {
		await hook("input", (e: typeof ev, c) => integ.input(e.source, c))(ev, ctx);
		return { action: "continue" as const };
	});
	pi.on("before_agent_start", hook("before_agent_start", (_ev, ctx) => integ.agentStart(ctx)));
	pi.on("context", hook("context", async (ev: any, ctx) => {
		await integ.step(ctx);
		const messages = integ.contextMessages(ev.messages ?? []);
		return messages ? { messages } : undefined;
	}));
	pi.on("message_end", (ev: any) => integ.messageEnd(ev.message));
	pi.on("tool_result", hook("tool_result", (ev: any, ctx) => integ.toolResult(ev.content, ctx)));
	pi.on("agent_end", hook("agent_end", (ev: any, ctx) => integ.agentEnd(ev.messages ?? [], ctx)));
	pi.on("session_before_compact", hook("session_before_compact", (ev: any, ctx) => integ.beforeCompact(ev, ctx)));
	pi.on("session_compact", hook("session_compact", (ev: any, ctx) => integ.compacted(ev.compactionEntry, ctx)));
	pi.on("session_shutdown", async (_ev, ctx) => {
		// Print mode exits when its prompt returns; a reset's continuation
		// (or a close-out) runs after that, so shutdown waits for it. With a
		// UI (interactive, RPC) Pi lives on, and a quit is the user's stop.
		if (ctx.hasUI) return;
		try {
			if (!(await integ.settled(ctx))) log("shutdown: gave up waiting for the continuation run");
		} catch (e) {
			log(`session_shutdown: ${errText(e)}`);
		}
	});

	pi.registerCommand("notesoup", {
		description: "notesoup: cap [100k|off] | empty | status",
		handler: async (args, ctx) => {
			const [sub = "cap", ...rest] = args.trim().split(/\s+/).filter(Boolean);
			let out: string;
			try {
				switch (sub) {
					case "cap":
						out = rest.length === 0 ? `notesoup: cap ${integ.cap ?? "off"}` : await integ.setCap(rest.join(" "), ctx as any);
						break;
					case "empty":
						out = await integ.manualStop(ctx as any);
						break;
					case "status":
						out = await integ.status(ctx as any, `${binary().path} (${binary().source})`);
						break;
					default:
						out = `notesoup: unknown subcommand "${sub}"; use /notesoup cap [100k|off], /notesoup empty or /notesoup status`;
				}
			} catch (e) {
				out = `notesoup: ${errText(e)}`;
			}
			integ.notify(ctx as any, out);
		},
	});
}
