// The bridge to the plugin-local notesoup helper (bin/notesoup-helper, the
// fast-starting build of `notesoup helper`): the one executable this hooks
// module runs, once per call, so its start is paid on every hook. The source gate
// (plugins/claude/gate) refuses any other $.process.run or spawn.
import type { EngineInterface } from 'claude-code'

/** The helper protocol version this module speaks (docs/helper-protocol.md). */
export const PROTOCOL_VERSION = 1

/**
 * How long one helper call may take. History reads of a large transcript are
 * the slowest operation (well under a second on 200 MB); 60 s leaves room
 * for a cold disk without letting a wedged helper hold a turn for the
 * engine's 10-minute maximum.
 */
export const HELPER_TIMEOUT_MS = 60_000

/** Who asks: the helper's caller envelope. */
export type Caller = {
  harness: 'claude'
  session?: string
  cwd?: string
  transcript?: string
  head?: string
  subagent?: boolean
}

/** A helper error, as the protocol reports it. */
export type HelperError = { code: string; message: string; field?: string }

/** One helper answer: a result, or an error saying what went wrong. */
export type HelperReply = { ok: true; result: unknown } | { ok: false; error: HelperError }

/**
 * The helper's path inside the plugin: bin/notesoup-helper, placed by `make`
 * beside bin/notesoup (which it hands a request to when an external harness
 * plugin must be loaded).
 */
export function helperBin($: EngineInterface): string {
  return `${$.plugin.root}/bin/notesoup-helper`
}

/**
 * Runs one helper operation and returns its parsed answer. A helper that
 * cannot start, exits non-zero or writes something that is not a protocol
 * response becomes an error reply naming the cause, never an exception: a
 * hook must degrade, not break the turn.
 */
export async function callHelper($: EngineInterface, op: string, caller: Caller, args?: unknown): Promise<HelperReply> {
  const request = JSON.stringify({ v: PROTOCOL_VERSION, op, caller, ...(args === undefined ? {} : { args }) })
  let run
  try {
    run = await $.process.run([helperBin($)], { stdin: request, timeoutMs: HELPER_TIMEOUT_MS })
  } catch (err) {
    return { ok: false, error: { code: 'helper_unavailable', message: `notesoup helper could not run (${String(err)}); build it with \`make -C <repo> plugin-claude\` so bin/notesoup-helper exists inside the plugin` } }
  }
  return parseReply(run.stdout, run.stderr, run.exitCode)
}

/** Parses the helper's stdout; exported for the unit tests. */
export function parseReply(stdout: string, stderr: string, exitCode: number): HelperReply {
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout)
  } catch {
    const why = stderr.trim().split('\n').slice(-1)[0] ?? ''
    return { ok: false, error: { code: 'helper_failed', message: `notesoup helper exited ${exitCode} without a JSON answer${why ? `: ${why}` : ''}` } }
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return { ok: false, error: { code: 'helper_failed', message: 'notesoup helper answered something other than a JSON object' } }
  }
  const r = parsed as { ok?: unknown; result?: unknown; error?: unknown }
  if (r.ok === true) return { ok: true, result: r.result }
  const e = r.error as Partial<HelperError> | undefined
  return { ok: false, error: { code: String(e?.code ?? 'failed'), message: String(e?.message ?? 'the helper refused without a message'), ...(e?.field ? { field: String(e.field) } : {}) } }
}
