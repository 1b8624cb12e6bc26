// The notesoup helper client both TypeScript integrations use (the Claude
// Code mod, the Pi extension): one JSON request on the helper's stdin, one
// JSON answer on its stdout (docs/helper-protocol.md), bounded in time and
// size, every failure turned into an answer that says what went wrong.
//
// Pure logic: how the helper process is run differs between the harnesses
// (Claude Code's $.process.run inside its own JS engine, node:child_process
// in Pi), so each integration passes its Runner in. Nothing here may import
// a harness or a Node module, or another file of plugins/common: each plugin
// gets a byte-identical copy of plugins/common/src at build time, and the
// two loaders resolve relative imports differently.

/** The helper protocol version the integrations speak. */
export const PROTOCOL_VERSION = 1

/**
 * How long one helper call may take. History reads of a large transcript are
 * the slowest operation (well under a second on 200 MB); 60 s leaves room for
 * a cold disk, and anything near it is a wedged helper that must not hold a
 * turn for the harness's own maximum (ten minutes in Claude Code).
 */
export const HELPER_TIMEOUT_MS = 60_000

/**
 * How much of each helper output stream is kept: Claude Code's $.process.run
 * keeps the first 4 MiB of each and drops the rest, and the Pi runner does the
 * same, so an answer means the same in both. The helper's largest answers (a
 * 64 KiB note, a 32 KiB history page, a boot block) are far below it.
 */
export const MAX_OUTPUT_BYTES = 4 << 20

/** Who asks: the helper's caller envelope (each integration narrows harness). */
export type Caller = {
  harness: string
  session?: string
  cwd?: string
  transcript?: string
  head?: string
  subagent?: boolean
}

/** One helper request; the envelope's v is added when it is encoded. */
export type Request = { op: string; caller?: Caller; args?: unknown }

/** A refusal the helper answered, or a failure to ask it. */
export type Failure = { code: string; message: string; field?: string }

/** One helper answer: a result, or a failure saying what went wrong. */
export type Reply = { ok: true; result: unknown } | { ok: false; error: Failure }

/**
 * How the helper process ended, as a Runner reports it. The field names are
 * those of Claude Code's ProcessRunResult, so its result passes as is.
 */
export type RunResult = {
  /** null when the process was ended by a signal (Node reports it so). */
  exitCode: number | null
  stdout: string
  stderr: string
  /** stdout was longer than MAX_OUTPUT_BYTES and is only its beginning. */
  isStdoutTruncated?: boolean
}

/**
 * Runs the helper once with stdin as its standard input, within
 * HELPER_TIMEOUT_MS, keeping at most MAX_OUTPUT_BYTES of each stream. It
 * rejects when the helper cannot start or does not finish in time.
 */
export type Runner = (stdin: string) => Promise<RunResult>

/** How failures name the helper: label (e.g. its argv), hint (how to fix an unstartable one). */
export type Who = { label: string; hint?: string }

/** The error codes of failures to ask (the helper's own codes pass through). */
export const CODE_SPAWN_FAILED = 'spawn_failed'
export const CODE_NO_ANSWER = 'no_answer'

/** The request as the helper reads it: {"v":1,"op":…,"caller":…,"args":…}, absent fields left out. */
export function encodeRequest(req: Request): string {
  return JSON.stringify({ v: PROTOCOL_VERSION, op: req.op, caller: req.caller, args: req.args })
}

/**
 * Runs one helper request and returns its answer. A helper that cannot
 * start, times out, or writes something that is not a protocol answer
 * becomes a failure naming the cause, never an exception: a hook must
 * degrade, not break the turn.
 */
export async function ask(run: Runner, req: Request, who: Who): Promise<Reply> {
  let out: RunResult
  try {
    out = await run(encodeRequest(req))
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err)
    return fail(CODE_SPAWN_FAILED, `${who.label} could not run (${why})${who.hint ? `; ${who.hint}` : ''}`)
  }
  return parseAnswer(out, req.op, who.label)
}

/** Decodes what the helper wrote for op (exported for the tests). */
export function parseAnswer(out: RunResult, op: string, label: string): Reply {
  if (out.isStdoutTruncated) {
    return fail(CODE_NO_ANSWER, `${label} (${op}) answered more than ${MAX_OUTPUT_BYTES} bytes; the answer was cut and is not used`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(out.stdout)
  } catch {
    // The last line of stderr is the helper's own reason (a log line or a
    // panic's summary comes last); the whole of it could be megabytes.
    const why = out.stderr.trim().split('\n').slice(-1)[0]?.trim() ?? ''
    return fail(CODE_NO_ANSWER, `${label} (${op}) exited ${out.exitCode} without a JSON answer${why ? `: ${why}` : ''}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail(CODE_NO_ANSWER, `${label} (${op}) answered something other than a JSON object`)
  }
  const r = parsed as { ok?: unknown; result?: unknown; error?: unknown }
  if (r.ok === true) return { ok: true, result: r.result }
  const e = (typeof r.error === 'object' && r.error !== null ? r.error : {}) as { code?: unknown; message?: unknown; field?: unknown }
  const error: Failure = { code: String(e.code ?? 'failed'), message: String(e.message ?? `${label} refused ${op} without a message`) }
  if (e.field !== undefined && e.field !== null && e.field !== '') error.field = String(e.field)
  return { ok: false, error }
}

function fail(code: string, message: string): Reply {
  return { ok: false, error: { code, message } }
}

// ---- answers -----------------------------------------------------------------

/** A reset action as reset.event returns it (shared/reset Action + handoff_text). */
export type Action = {
  kind: 'nothing' | 'end_turn' | 'run_compaction' | 'install_boot' | 'send_continuation' | 'report_dropped' | 'submit_closeout' | 'refuse'
  request_id?: number
  marker?: string
  pool?: string
  handoff?: number
  last_word?: string
  window?: number
  message?: string
  handoff_text?: string
}

/** The budget points the helper's limits operation resolves. */
export type Limits = {
  resolved: boolean
  native?: number
  hard?: number
  warning?: number
  window?: number
  source?: string
  reason?: string
  auto_reset?: boolean
  warnings_enabled?: boolean
}

/** The persisted reset state fields the integrations read (reset.state). */
export type ResetState = {
  window: number
  warned?: boolean
  request?: { id: number; origin?: string; stop?: boolean; terminate?: boolean; last_word?: string } | null
  commit?: { marker: string } | null
}

/** The actions of a reset.event result; none when it has no list. */
export function actionsOf(result: unknown): Action[] {
  const acts = (result as { actions?: unknown } | null | undefined)?.actions
  return Array.isArray(acts) ? (acts as Action[]) : []
}

/** The text of a tool-like result ({text, data}): what the model or person is shown; "" when absent. */
export function answerText(result: unknown): string {
  return String((result as { text?: unknown } | null | undefined)?.text ?? '')
}

/** The marker a reset's compaction instructions carry (shared/reset Marker). */
export const MARKER_RE = /notesoup-reset:\d+:\d+/

/** The marker inside compaction instructions, or "" (a compaction that is not a notesoup reset). */
export function markerIn(instructions: string | undefined): string {
  return instructions?.match(MARKER_RE)?.[0] ?? ''
}
