// notesoup for the Pi coding agent: the notes tools, history tools,
// empty_brain and get_context_remaining, the boot block at the start of
// every window, the budget warning, and clean resets through Pi's own
// compaction. Every decision is the notesoup binary's (helper protocol);
// this file only wires Pi's extension API to src/integration.ts. It is
// loaded by src/index.ts, which first checks that it can load.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { existsSync, writeSync } from "node:fs";
import { join } from "node:path";
import { errText } from "./common/format.ts";
import { callHelper, findBinary, type Found, HelperError } from "./helper.ts";
import { FLAG, type ToolDef } from "./index.ts";
import { Integration } from "./integration.ts";
import { startVaultSync } from "./vaultsync.ts";

/** USAGE is what /notesoup can do, shown by bare /notesoup and on a typo. */
export const USAGE = [
	"notesoup: /notesoup cap [100k|off]  show, set or clear a runtime ceiling on the window",
	"          /notesoup empty           save notes, then empty the window (no continuation)",
	"          /notesoup status          binary, window, pending reset, budget points",
].join("\n");

/**
 * printMode reports whether Pi runs in print mode with text output (pi -p,
 * or a prompt with stdin not a terminal), the one mode that prints only the
 * last message of the prompt's run. It reads Pi's own arguments the way
 * Pi's resolveAppMode does: --mode json and --mode rpc print events
 * instead, and a terminal without -p is interactive.
 */
export function printMode(argv: string[], stdinIsTTY: boolean | undefined): boolean {
	let print = false;
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--mode" && (argv[i + 1] === "json" || argv[i + 1] === "rpc")) return false;
		if (a === "-p" || a === "--print") print = true;
	}
	return print || !stdinIsTTY;
}

/**
 * writeStdout writes to the process's real stdout. Pi points
 * process.stdout at stderr outside interactive mode (its output guard), so
 * the answer goes to file descriptor 1 directly, as Pi's own does.
 */
function writeStdout(text: string): void {
	const buf = Buffer.from(text, "utf8");
	let off = 0;
	// A pipe Node made non-blocking answers EAGAIN while full: retried a
	// bounded number of times (the reader is the person's shell or script).
	for (let tries = 0; off < buf.length && tries < 10_000; ) {
		try {
			off += writeSync(1, buf, off);
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code === "EAGAIN") {
				tries++;
				continue;
			}
			process.stderr.write(`notesoup: writing the answer to stdout: ${errText(e)}\n`);
			return;
		}
	}
}

/**
 * wire registers the tools, hooks and command with Pi. index.ts calls it
 * once it has checked that everything the extension needs is there.
 */
export function wire(pi: ExtensionAPI, tools: ToolDef[], root: string, log: (message: string) => void): void {
	let found: Found | undefined;
	const binary = (): Found => {
		if (!found) {
			const flag = pi.getFlag(FLAG);
			found = findBinary({ flag: typeof flag === "string" ? flag : undefined, local: join(root, "bin", "notesoup") });
		}
		return found;
	};
	const integ = new Integration((req, signal) => callHelper(binary().path, req, signal), pi, log, printMode(process.argv, process.stdin.isTTY) ? writeStdout : undefined);

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

	// Not awaited, never failing: the vault's copy of Pi's sessions (src/vaultsync.ts).
	pi.on("session_start", async () => void startVaultSync(() => binary().path));
	// The memory and dream skills the package ships (skills/, byte-identical
	// copies of the repository's): offered here rather than by a pi.skills
	// entry in package.json, so that a disabled or broken extension offers
	// none (their texts name tools only the extension registers).
	const skills = join(root, "skills");
	pi.on("resources_discover", () => (existsSync(skills) ? { skillPaths: [skills] } : {}));
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
		// Pi has printed the prompt's run by now; what it cannot print (the
		// text before empty_brain, the continuation's answer) follows.
		integ.flushOwed();
	});

	pi.registerCommand("notesoup", {
		description: "notesoup: cap [100k|off] | empty | status",
		handler: async (args, ctx) => {
			const [sub = "", ...rest] = args.trim().split(/\s+/).filter(Boolean);
			let out: string;
			try {
				switch (sub) {
					case "":
						// Bare /notesoup: what the command does, then where things stand.
						try {
							out = `${USAGE}\n${await integ.status(ctx as any, `${binary().path} (${binary().source})`)}`;
						} catch (e) {
							out = `${USAGE}\nnotesoup: status unavailable: ${errText(e)}`;
						}
						break;
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
						out = `notesoup: unknown subcommand "${sub}".\n${USAGE}`;
				}
			} catch (e) {
				out = `notesoup: ${errText(e)}`;
			}
			integ.notify(ctx as any, out);
		},
	});
}
