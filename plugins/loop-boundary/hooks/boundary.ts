// Pure rules of the loop-boundary mod: what an iteration boundary is, which turns pass, what the ledger rows and
// the boundary message say. Nothing here touches `$`, so every rule is unit-tested without an engine.

/** A tool call of one model step, as `turn.step` reports it. */
export type ToolUse = { readonly name: string; readonly input: unknown }

// The lines /auto ends an iteration with (skills/auto/SKILL.md). A heartbeat status check and a stalled turn end
// with none of them, which is what keeps an in-flight iteration's context intact. Markdown decoration in front
// (quote, bullet, emphasis, heading) is tolerated because models decorate their last line.
const OUTCOME_LINE =
  /^[\s>*_`#-]*(?:SHIPPED-MERGE|SHIPPED-PR|DEFERRED-MERGE|SKIPPED-[A-Z]+(?:-[A-Z]+)*|BLOCKED-ON-REVIEW|AUTO-CONTINUE|NO-CANDIDATES|AUTO-HALTED)\b.*$/gm

// The ledger keeps an outcome line short: it names the outcome and its subject, not a report.
const MAX_OUTCOME_CHARS = 200

/**
 * The outcome line a turn's answer ended its iteration with, undecorated, or null when it has none. When the answer
 * holds several (a recap of earlier iterations, then its own), the last one is the turn's.
 */
export function outcomeLineOf(answer: string): string | null {
  let last: string | null = null
  for (const m of answer.matchAll(OUTCOME_LINE)) last = m[0]
  if (last === null) return null
  return last
    .replace(/^[\s>*_`#-]+/, '')
    .replace(/[*_`]+/g, '')
    .trim()
    .slice(0, MAX_OUTCOME_CHARS)
}

// `/loop 5m /auto epic:BF-1` re-fires `/auto epic:BF-1`; `/loop /auto` re-fires `/auto` (the model paces it with
// ScheduleWakeup). A leading interval is the schedule, not part of the prompt.
const LOOP_TEXT = /^\/loop(?:\s+([\s\S]*))?$/i
const LEADING_INTERVAL = /^\d+(?:\.\d+)?\s*(?:s|m|h|d|secs?|seconds?|mins?|minutes?|hours?|hrs?|days?)(?:\s+|$)/i

/**
 * The loop prompt of a submitted prompt when it starts a loop, else null. `command` is the slash command the
 * engine parsed (`{ name: 'loop', args: '1m /auto' }`); a dispatched prompt may arrive without it, so the text is
 * read too.
 */
export function loopPromptOf(text: string, command?: { readonly name: string; readonly args: string }): string | null {
  let args: string
  if (command !== undefined) {
    if (command.name !== 'loop') return null
    args = command.args
  } else {
    const m = LOOP_TEXT.exec(text.trim())
    if (m === null) return null
    args = m[1] ?? ''
  }
  return args.trim().replace(LEADING_INTERVAL, '').trim()
}

/** Whether a loop prompt begins with one of the configured prefixes (the prefix whole, then an end or a space). */
export function matchesPrefix(prompt: string, prefixes: readonly string[]): boolean {
  const p = prompt.trim()
  return prefixes.some((prefix) => p === prefix || (p.startsWith(prefix) && /\s/.test(p.charAt(prefix.length))))
}

function inputOf(use: ToolUse): Record<string, unknown> {
  return typeof use.input === 'object' && use.input !== null ? (use.input as Record<string, unknown>) : {}
}

/**
 * What a step's ScheduleWakeup calls say about the loop: the prompt a call arms the next iteration with (null when
 * none arms one) and whether a call ends the loop (`stop: true`).
 */
export function wakeupOf(uses: readonly ToolUse[]): { prompt: string | null; stop: boolean } {
  let prompt: string | null = null
  let stop = false
  for (const use of uses) {
    if (use.name !== 'ScheduleWakeup') continue
    const input = inputOf(use)
    if (input.stop === true) stop = true
    else if (input.noop !== true && typeof input.prompt === 'string' && input.prompt.trim() !== '') prompt = input.prompt.trim()
  }
  return { prompt, stop }
}

/**
 * The context one request carried: its uncached input plus cache reads and writes, as the engine's
 * `context.tokens` counts it. Null for a step that made no request (a hook's synthetic answer).
 */
export function requestTokensOf(usage: unknown): number | null {
  if (typeof usage !== 'object' || usage === null) return null
  const u = usage as Record<string, unknown>
  const parts = [u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens].filter(
    (v): v is number => typeof v === 'number',
  )
  return parts.length === 0 ? null : parts.reduce((a, b) => a + b, 0)
}

/** The /auto run key of a session: the first group of its id, as /auto names its state file. */
export function runKeyOf(sessionId: string): string {
  return sessionId.split('-')[0] ?? sessionId
}

/** Where the ledger of a session lives. */
export function ledgerPathOf(root: string, sessionId: string): string {
  return `${root}/tmp/loop-boundary-${sessionId}.jsonl`
}

/** Where /auto keeps the cross-iteration state of a run. */
export function statePathOf(root: string, runKey: string): string {
  return `${root}/tmp/auto-state-${runKey}.json`
}

/** The one message that replaces the conversation at a boundary. */
export function boundaryMessage(args: { outcome: string; runKey: string; statePath: string; stateExists: boolean }): string {
  const state = args.stateExists ? `run state in ${args.statePath}` : `no run-state file at ${args.statePath} yet`
  return [
    `Loop boundary: the previous /auto iteration ended with \`${args.outcome}\`.`,
    `Run key ${args.runKey}; ${state}. The conversation before this point was compacted away at the iteration boundary by the loop-boundary mod; /auto re-reads its state from that file and from Linear, and nothing from the earlier iteration is needed here.`,
  ].join('\n')
}

/** The mod's settings, read from its userConfig values. */
export type Options = {
  readonly enabled: boolean
  readonly prefixes: readonly string[]
  readonly minContextPercent: number
  readonly ledger: boolean
}

// The prefix /auto's own loop prompt begins with, used when loop_prefixes names none.
const DEFAULT_PREFIX = '/auto'

/** Reads the userConfig values (defaults already filled in by the engine; missing ones fall back here too). */
export function readOptions(raw: Readonly<Record<string, unknown>>): Options {
  const prefixes =
    typeof raw.loop_prefixes === 'string'
      ? raw.loop_prefixes
          .split(/[,\s]+/)
          .map((p) => p.trim())
          .filter((p) => p !== '')
      : Array.isArray(raw.loop_prefixes)
        ? raw.loop_prefixes.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim())
        : []
  const min = raw.min_context_percent
  return {
    enabled: raw.enabled !== false,
    prefixes: prefixes.length > 0 ? prefixes : [DEFAULT_PREFIX],
    minContextPercent: typeof min === 'number' && Number.isFinite(min) && min > 0 ? Math.min(100, min) : 0,
    ledger: raw.ledger !== false,
  }
}

/** Why a turn was passed through: each value is a ledger row's `reason`. */
export type PassReason =
  | 'subagent'
  | 'no-loop'
  | 'prefix'
  | 'aborted'
  | 'error'
  | 'refusal'
  | 'no-outcome'
  | 'loop-ended'
  | 'below-floor'

/** What one completed turn is, as far as this mod is concerned. */
export type Verdict =
  | { readonly kind: 'ignore' }
  | { readonly kind: 'pass'; readonly reason: PassReason; readonly outcome: string | null }
  | { readonly kind: 'boundary'; readonly outcome: string }

/** Everything `decide` reads about a completed turn and the session around it. */
export type TurnFacts = {
  readonly agentId?: string
  readonly reason: 'answer' | 'aborted' | 'refusal' | 'error'
  readonly isAborted: boolean
  readonly answer: string
  /** The session's loop prompt, or null while no loop runs. */
  readonly loopPrompt: string | null
  /** A ScheduleWakeup call in this turn ended the loop. */
  readonly loopEnding: boolean
  /** The context window's fill in whole percent, absent before the first response. */
  readonly contextPercent?: number
}

/**
 * Decides whether a completed turn is a boundary, a pass (and why), or nothing to record. The order is the order of
 * the spec's exclusions: whose conversation it is, whether a loop runs, the prefix, how the turn ended, the outcome
 * line, whether the loop ends here, and the floor.
 *
 * Turns outside a loop are ignored, not recorded, unless they ended with an outcome line (a would-be boundary in a
 * session running no loop): the mod is installed user-wide and must not write a ledger into every project.
 */
export function decide(t: TurnFacts, opts: Options): Verdict {
  if (!opts.enabled) return { kind: 'ignore' }
  const outcome = t.reason === 'answer' && !t.isAborted ? outcomeLineOf(t.answer) : null
  if (t.agentId !== undefined) return t.loopPrompt === null ? { kind: 'ignore' } : { kind: 'pass', reason: 'subagent', outcome }
  if (t.loopPrompt === null) return outcome === null ? { kind: 'ignore' } : { kind: 'pass', reason: 'no-loop', outcome }
  if (!matchesPrefix(t.loopPrompt, opts.prefixes)) return { kind: 'pass', reason: 'prefix', outcome }
  if (t.isAborted || t.reason === 'aborted') return { kind: 'pass', reason: 'aborted', outcome: null }
  if (t.reason !== 'answer') return { kind: 'pass', reason: t.reason, outcome: null }
  if (outcome === null) return { kind: 'pass', reason: 'no-outcome', outcome: null }
  if (t.loopEnding) return { kind: 'pass', reason: 'loop-ended', outcome }
  if (opts.minContextPercent > 0 && (t.contextPercent ?? 0) < opts.minContextPercent) return { kind: 'pass', reason: 'below-floor', outcome }
  return { kind: 'boundary', outcome }
}

/** A ledger row before its timestamp and session are stamped on. */
export type RowBody = Readonly<Record<string, unknown>>

/**
 * The row of a passed-through turn: `{event, reason, turnId, loopPrompt}` as the seed shows it, plus the outcome
 * line when the turn had one, the fill for a floor pass, and the agent id for a subagent's turn.
 */
export function passRow(args: {
  reason: PassReason
  turnId: string
  loopPrompt: string | null
  outcome?: string | null
  contextPercent?: number | null
  agentId?: string
}): RowBody {
  return {
    event: 'pass',
    reason: args.reason,
    ...(args.outcome != null ? { outcome: args.outcome } : {}),
    ...(args.reason === 'below-floor' ? { contextPercent: args.contextPercent ?? null } : {}),
    ...(args.agentId !== undefined ? { agentId: args.agentId } : {}),
    turnId: args.turnId,
    loopPrompt: args.loopPrompt,
  }
}

/**
 * The row of a boundary, keys in the seed's order. A compaction that did not happen is `accepted: false` with the
 * veto (`skipped`) or the failure (`error`) beside it, and `nearClear: false`.
 */
export function boundaryRow(args: {
  accepted: boolean
  outcome: string
  tokensBefore: number | null
  nearClear: boolean
  turnId: string
  loopPrompt: string
  skipped?: string
  error?: string
}): RowBody {
  return {
    event: 'boundary',
    accepted: args.accepted,
    ...(args.skipped !== undefined ? { skipped: args.skipped } : {}),
    ...(args.error !== undefined ? { error: args.error } : {}),
    outcome: args.outcome,
    tokensBefore: args.tokensBefore,
    tokensAfter: null,
    path: 'turn-complete',
    nearClear: args.nearClear,
    turnId: args.turnId,
    loopPrompt: args.loopPrompt,
  }
}

/** Stamps a row with its time and session, in the seed's key order, as one JSONL line. */
export function ledgerLine(ts: string, session: string, body: RowBody): string {
  return JSON.stringify({ ts, session, ...body })
}

/** The line with `tokensAfter` filled in; a line that does not parse is returned unchanged. */
export function withTokensAfter(line: string, tokensAfter: number): string {
  try {
    const row = JSON.parse(line) as Record<string, unknown>
    return JSON.stringify({ ...row, tokensAfter })
  } catch {
    return line
  }
}

/** The non-empty lines of a ledger file read back at session start. */
export function ledgerLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '')
}

/**
 * The `/compact` argument that marks the compaction this mod asked for in a headless session, where
 * `$.session.compact()` is refused and the mod issues the command instead. The turn id makes it unique, so the
 * mod's `session.compact` hook answers that compaction and no other one (a typed `/compact`, the threshold's).
 */
export function compactMark(turnId: string): string {
  return `loop-boundary ${turnId}`
}
