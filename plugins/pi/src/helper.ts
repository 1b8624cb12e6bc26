// The notesoup helper client: finds the notesoup binary and asks it one
// question per process (`notesoup helper`, one JSON request on stdin, one
// JSON response on stdout; docs/helper-protocol.md). Every decision the Pi
// extension makes comes from these answers. The request, the answer and
// every failure are the shared client's (common/helper-client.ts, a
// build-time copy of plugins/common/src, as in the Claude Code mod); only
// finding and running the process is Pi's.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ask, HELPER_TIMEOUT_MS, type Caller as HelperCaller, MAX_OUTPUT_BYTES, type RunResult } from "./common/helper-client.ts";

/** BIN_ENV names the environment variable that points at the binary. */
export const BIN_ENV = "NOTESOUP_BIN";

/** Caller is who asks: it binds the session, project and transcript. */
export type Caller = HelperCaller & { harness: "pi" };

/** HelperError is a refusal the helper answered (or a failure to ask). */
export class HelperError extends Error {
	readonly code: string;
	readonly field?: string;
	constructor(code: string, message: string, field?: string) {
		super(message);
		this.name = "HelperError";
		this.code = code;
		this.field = field;
	}
}

/** Where to look for the binary, in order; each field is optional. */
export interface FindOptions {
	/** The --notesoup-bin flag's value. */
	flag?: string;
	/** The environment (NOTESOUP_BIN, PATH). */
	env?: NodeJS.ProcessEnv;
	/** The plugin-local build (plugins/pi/bin/notesoup, placed by build.mk). */
	local?: string;
}

/** Found is the binary and the rule that found it (for /notesoup status). */
export interface Found {
	path: string;
	source: "flag" | "env" | "plugin" | "path";
}

function executable(p: string): boolean {
	try {
		if (!statSync(p).isFile()) return false;
		accessSync(p, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/**
 * findBinary resolves the notesoup binary: the flag, then NOTESOUP_BIN,
 * then the plugin-local build, then PATH. An explicit flag or variable that
 * names nothing executable is an error rather than a silent fallback, so a
 * typo never runs a different notesoup.
 */
export function findBinary(opts: FindOptions): Found {
	const env = opts.env ?? process.env;
	if (opts.flag) {
		if (!executable(opts.flag)) {
			throw new HelperError("no_binary", `--notesoup-bin ${opts.flag}: not an executable file; pass the path of a built notesoup binary`);
		}
		return { path: opts.flag, source: "flag" };
	}
	const fromEnv = env[BIN_ENV];
	if (fromEnv) {
		if (!executable(fromEnv)) {
			throw new HelperError("no_binary", `${BIN_ENV}=${fromEnv}: not an executable file; point it at a built notesoup binary or unset it`);
		}
		return { path: fromEnv, source: "env" };
	}
	if (opts.local && executable(opts.local)) {
		return { path: opts.local, source: "plugin" };
	}
	for (const dir of (env.PATH ?? "").split(delimiter)) {
		if (!dir) continue;
		const p = join(dir, "notesoup");
		if (executable(p)) return { path: p, source: "path" };
	}
	throw new HelperError(
		"no_binary",
		"notesoup binary not found: pass --notesoup-bin /path/to/notesoup, set NOTESOUP_BIN, " +
			`build the plugin-local copy (make pi-build, which places ${opts.local ?? "plugins/pi/bin/notesoup"}), or put notesoup on PATH`,
	);
}

/** Request is one helper request (the envelope's v is added). */
export interface Request {
	op: string;
	caller?: Caller;
	args?: unknown;
}

/** Call runs one helper request; injectable so tests can fake the binary. */
export type Call = (req: Request, signal?: AbortSignal) => Promise<any>;

/**
 * callHelper runs one request through `bin helper` (the light build, which
 * starts fast: every tool call and turn pays a start) and returns its result, or throws HelperError with the helper's code, message
 * and field (or the shared client's, when no answer came).
 */
export async function callHelper(bin: string, req: Request, signal?: AbortSignal): Promise<any> {
	const r = await ask((stdin) => run(bin, ["helper"], stdin, signal), req, { label: `${bin} helper` });
	if (!r.ok) throw new HelperError(r.error.code, r.error.message, r.error.field);
	return r.result;
}

/**
 * run is the shared client's Runner in Node, bounded as Claude Code's
 * $.process.run bounds it: the first MAX_OUTPUT_BYTES of each stream are
 * kept and the rest dropped, and a helper still running at the timeout is
 * killed and the call rejected.
 */
function run(cmd: string, args: string[], stdin: string, signal?: AbortSignal): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		const p = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], signal });
		const out = capped();
		const err = capped();
		p.stdout.on("data", out.add);
		p.stderr.on("data", err.add);
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			p.kill("SIGKILL");
		}, HELPER_TIMEOUT_MS);
		p.on("error", (e) => {
			clearTimeout(timer);
			reject(e);
		});
		p.on("close", (code) => {
			clearTimeout(timer);
			if (timedOut) {
				reject(new Error(`no answer within ${HELPER_TIMEOUT_MS / 1000} s`));
				return;
			}
			resolve({ exitCode: code, stdout: out.text(), stderr: err.text(), isStdoutTruncated: out.truncated() });
		});
		p.stdin.on("error", () => {
			// The helper may exit before reading everything (a refused
			// envelope); its answer on stdout still says why.
		});
		p.stdin.end(stdin);
	});
}

/** capped collects a stream's first MAX_OUTPUT_BYTES and notes whether more came. */
function capped() {
	const chunks: Buffer[] = [];
	let kept = 0;
	let cut = false;
	return {
		add: (d: Buffer) => {
			const room = MAX_OUTPUT_BYTES - kept;
			if (d.length > room) cut = true;
			if (room <= 0) return;
			const part = d.length > room ? d.subarray(0, room) : d;
			chunks.push(part);
			kept += part.length;
		},
		text: () => Buffer.concat(chunks).toString("utf8"),
		truncated: () => cut,
	};
}
