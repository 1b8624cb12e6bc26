// The notesoup helper client: finds the notesoup binary and asks it one
// question per process (`notesoup helper`, one JSON request on stdin, one
// JSON response on stdout; docs/helper-protocol.md). Every decision the Pi
// extension makes comes from these answers.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

/** PROTOCOL is the helper protocol version this extension speaks. */
export const PROTOCOL = 1;

/** BIN_ENV names the environment variable that points at the binary. */
export const BIN_ENV = "NOTESOUP_BIN";

/**
 * HELPER_TIMEOUT_MS bounds one helper call. A call reads a few small files;
 * a history read of a large transcript takes well under a second, so
 * anything near this is a hung process, not a slow answer.
 */
export const HELPER_TIMEOUT_MS = 30_000;

/** Caller is who asks: it binds the session, project and transcript. */
export interface Caller {
	harness: "pi";
	session?: string;
	cwd?: string;
	transcript?: string;
}

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
 * helperArgv is how one request to bin is run: notesoup-helper beside bin
 * when there is one (the same answers as `notesoup helper` from a build that
 * starts several times faster, which matters because every tool call and
 * turn pays a start), else `bin helper`.
 */
export function helperArgv(bin: string): [string, string[]] {
	const fast = join(dirname(bin), "notesoup-helper");
	return executable(fast) ? [fast, []] : [bin, ["helper"]];
}

/**
 * callHelper runs one request through bin's helper (see helperArgv) and
 * returns its result, or throws HelperError with the helper's code, message
 * and field.
 */
export function callHelper(bin: string, req: Request, signal?: AbortSignal): Promise<any> {
	return new Promise((resolve, reject) => {
		const [cmd, args] = helperArgv(bin);
		const p = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], signal, timeout: HELPER_TIMEOUT_MS });
		const out: Buffer[] = [];
		const err: Buffer[] = [];
		p.stdout.on("data", (d: Buffer) => out.push(d));
		p.stderr.on("data", (d: Buffer) => err.push(d));
		p.on("error", (e) => reject(new HelperError("spawn_failed", `running ${bin} helper: ${e.message}`)));
		p.on("close", (code) => {
			const stdout = Buffer.concat(out).toString("utf8");
			const stderr = Buffer.concat(err).toString("utf8").trim();
			let resp: any;
			try {
				resp = JSON.parse(stdout);
			} catch {
				reject(new HelperError("no_answer", `${bin} helper (${req.op}) exited ${code} without a JSON answer${stderr ? `: ${stderr}` : ""}`));
				return;
			}
			if (resp?.ok === true) {
				resolve(resp.result);
				return;
			}
			const e = resp?.error ?? {};
			reject(new HelperError(String(e.code ?? "failed"), String(e.message ?? `helper ${req.op} failed`), e.field));
		});
		p.stdin.on("error", () => {
			// The helper may exit before reading everything (a refused
			// envelope); its answer on stdout still says why.
		});
		p.stdin.end(JSON.stringify({ v: PROTOCOL, ...req }));
	});
}
