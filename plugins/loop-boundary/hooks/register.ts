// The loop-boundary mod: at each /loop iteration boundary (a main-loop turn that ended with an /auto outcome line,
// in a looping session, on a loop prompt with a configured prefix) it compacts the conversation to one boundary
// message, and keeps a ledger row per boundary or passed-through looping turn.
//
// Every function that takes `$` is declared at the top level of this file: `claude plugin validate` refuses `$`
// handed to a closure inside `register`. The session's state lives in one object made per `register` call, so a
// reload (or a test) starts clean.
import type { EngineInterface, Register, SessionCompacted, SessionMessage } from 'claude-code'
import {
  boundaryMessage,
  boundaryRow,
  compactMark,
  decide,
  ledgerLine,
  ledgerLines,
  ledgerPathOf,
  loopPromptOf,
  passRow,
  readOptions,
  requestTokensOf,
  runKeyOf,
  statePathOf,
  wakeupOf,
  withTokensAfter,
  type Options,
  type RowBody,
} from './boundary'

type $ = EngineInterface

/** The compaction this mod started and has not seen settled. */
type Compaction = {
  readonly outcome: string
  readonly tokensBefore: number | null
  readonly turnId: string
  readonly loopPrompt: string
  /** The `/compact` argument of the headless route, which the mod's `session.compact` hook recognizes. */
  readonly mark: string
  /** `call`: `$.session.compact()` is in flight. `command`: a `/compact <mark>` was queued instead. */
  via: 'call' | 'command'
  /** The mod's `session.compact` hook answered it with the boundary message. */
  answered: boolean
}

type State = {
  sessionId: string
  runKey: string
  root: string
  ledgerPath: string
  /** The ledger's rows, one JSON line each: the file is rewritten whole from them. */
  rows: string[]
  /** The loop prompt of the running loop, null while none runs. */
  loopPrompt: string | null
  /** A ScheduleWakeup call in the current main-loop turn ended the loop. */
  loopEnding: boolean
  compacting: Compaction | null
  /** The accepted boundary row whose tokensAfter the next main-loop request fills in. */
  pendingAfter: number | null
  dirty: boolean
  flushing: Promise<void> | null
}

function newState(): State {
  return {
    sessionId: '',
    runKey: '',
    root: '',
    ledgerPath: '',
    rows: [],
    loopPrompt: null,
    loopEnding: false,
    compacting: null,
    pendingAfter: null,
    dirty: false,
    flushing: null,
  }
}

// Writes are serialized: each write puts the whole row list, and two overlapping `$.fs.write`s could land the
// older list last. A write asked for while one runs is folded into one more pass of the running drain.
async function drain($: $, st: State): Promise<void> {
  while (st.dirty) {
    st.dirty = false
    await $.fs.write(st.ledgerPath, st.rows.join('\n') + '\n')
  }
}

async function flush($: $, st: State): Promise<void> {
  st.dirty = true
  if (st.flushing !== null) return st.flushing
  st.flushing = drain($, st)
  try {
    await st.flushing
  } finally {
    st.flushing = null
  }
}

/** Appends a row to the ledger (when it is on) and returns its index, or -1 when no row was kept. */
async function record($: $, st: State, opts: Options, body: RowBody): Promise<number> {
  if (!opts.ledger || st.ledgerPath === '') return -1
  const ts = new Date(await $.clock.now()).toISOString()
  st.rows.push(ledgerLine(ts, st.sessionId, body))
  const index = st.rows.length - 1
  try {
    await flush($, st)
  } catch (err) {
    $.ui.log(`loop-boundary: could not write the ledger ${st.ledgerPath}: ${String(err)}`, { to: 'debug' })
  }
  return index
}

async function start($: $, st: State, opts: Options): Promise<void> {
  st.sessionId = await $.session.id()
  st.runKey = runKeyOf(st.sessionId)
  st.root = await $.session.root()
  if (!opts.enabled || !opts.ledger) return
  st.ledgerPath = ledgerPathOf(st.root, st.sessionId)
  // A resumed session keeps its earlier rows: the file is rewritten whole from st.rows.
  if (await $.fs.exists(st.ledgerPath)) st.rows = ledgerLines(await $.fs.read(st.ledgerPath))
}

/** Fills the pending boundary row's tokensAfter from the first request of the next iteration. */
async function fillTokensAfter($: $, st: State, usage: unknown): Promise<void> {
  if (st.pendingAfter === null) return
  const after = requestTokensOf(usage)
  // A step that made no request (a hook's synthetic answer) measures nothing: wait for one that did.
  if (after === null) return
  const index = st.pendingAfter
  st.pendingAfter = null
  const row = st.rows[index]
  if (row === undefined) return
  st.rows[index] = withTokensAfter(row, after)
  try {
    await flush($, st)
  } catch (err) {
    $.ui.log(`loop-boundary: could not write the ledger ${st.ledgerPath}: ${String(err)}`, { to: 'debug' })
  }
  $.ui.log(`loop-boundary: the next iteration's first request carried ${after.toLocaleString('en-US')} tokens`)
}

async function accepted($: $, st: State, opts: Options, c: Compaction, tokensBefore: number | null): Promise<void> {
  const index = await record($, st, opts, boundaryRow({ accepted: true, outcome: c.outcome, tokensBefore, nearClear: c.answered, turnId: c.turnId, loopPrompt: c.loopPrompt }))
  st.pendingAfter = index >= 0 ? index : null
  const before = tokensBefore === null ? 'an unmeasured number of' : tokensBefore.toLocaleString('en-US')
  $.ui.log(`loop-boundary: compacted at the iteration boundary after \`${c.outcome}\`; the last request carried ${before} tokens`)
}

async function refused($: $, st: State, opts: Options, c: Compaction, why: { skipped?: string; error?: string }): Promise<void> {
  await record($, st, opts, boundaryRow({ accepted: false, ...why, outcome: c.outcome, tokensBefore: c.tokensBefore, nearClear: false, turnId: c.turnId, loopPrompt: c.loopPrompt }))
  $.ui.log(`loop-boundary: boundary after \`${c.outcome}\` not compacted (${why.skipped ?? why.error ?? 'unknown'})`)
}

// The headless route settles after turn.complete has returned: the queued /compact runs once the session is idle.
// Its hook answer wrote the accepted row; a command that ran without reaching the hook, or failed, is recorded here.
async function settleCommand($: $, st: State, opts: Options, c: Compaction, run: Promise<unknown>): Promise<void> {
  let error: string | undefined
  try {
    await run
  } catch (err) {
    error = String(err)
  }
  if (st.compacting === c) st.compacting = null
  if (c.answered) return
  await refused($, st, opts, c, error !== undefined ? { error } : { skipped: 'the /compact command ran without reaching the loop-boundary hook' })
}

/**
 * Compacts at a boundary. `$.session.compact()` is the call the spec names; a headless (-p / SDK) session refuses
 * it ("compaction here runs inside a turn"), and there the mod queues `/compact <mark>` instead, which the engine
 * runs right after this turn. Either way the mod's own `session.compact` hook answers with the boundary message.
 */
async function compactAtBoundary($: $, st: State, opts: Options, turnId: string, outcome: string, loopPrompt: string, tokensBefore: number | null): Promise<void> {
  const c: Compaction = { outcome, tokensBefore, turnId, loopPrompt, mark: compactMark(turnId), via: 'call', answered: false }
  st.compacting = c
  let result: Awaited<ReturnType<$['session']['compact']>>
  try {
    result = await $.session.compact()
  } catch (err) {
    c.via = 'command'
    $.ui.log(`loop-boundary: $.session.compact refused (${String(err)}); queuing /compact for this boundary`, { to: 'debug' })
    let run: Promise<unknown>
    try {
      run = $.command.run({ command: 'compact', args: c.mark })
    } catch (err2) {
      run = Promise.reject(err2)
    }
    // Not awaited: the command waits for this turn to end, and this hook is part of it.
    void settleCommand($, st, opts, c, run)
    return
  }
  st.compacting = null
  if (result.skip !== undefined) await refused($, st, opts, c, { skipped: result.skip })
  else await accepted($, st, opts, c, result.tokensBefore ?? tokensBefore)
}

async function turnComplete($: $, st: State, opts: Options, e: { agentId?: string; reason: 'answer' | 'aborted' | 'refusal' | 'error'; isAborted: boolean; answer: string; turnId: string }): Promise<void> {
  if (!opts.enabled) return
  const main = e.agentId === undefined
  const loopPrompt = st.loopPrompt
  const loopEnding = main && st.loopEnding
  const context = main && loopPrompt !== null ? (await $.session.usage()).context : undefined
  const verdict = decide(
    {
      ...(e.agentId !== undefined ? { agentId: e.agentId } : {}),
      reason: e.reason,
      isAborted: e.isAborted,
      answer: e.answer,
      loopPrompt,
      loopEnding,
      ...(context?.percent !== undefined ? { contextPercent: context.percent } : {}),
    },
    opts,
  )
  // The loop ends with the turn whose ScheduleWakeup stopped it: later turns run in a session with no loop.
  if (loopEnding) st.loopPrompt = null
  if (verdict.kind === 'ignore') return
  if (verdict.kind === 'pass') {
    await record(
      $,
      st,
      opts,
      passRow({
        reason: verdict.reason,
        turnId: e.turnId,
        loopPrompt,
        outcome: verdict.outcome,
        contextPercent: context?.percent ?? null,
        ...(e.agentId !== undefined ? { agentId: e.agentId } : {}),
      }),
    )
    return
  }
  await compactAtBoundary($, st, opts, e.turnId, verdict.outcome, loopPrompt ?? '', context?.tokens ?? null)
}

async function answerCompaction($: $, st: State, opts: Options, c: Compaction): Promise<SessionCompacted> {
  c.answered = true
  const statePath = statePathOf(st.root, st.runKey)
  const text = boundaryMessage({ outcome: c.outcome, runKey: st.runKey, statePath, stateExists: await $.fs.exists(statePath) })
  // The headless route's row is written here: nothing else hears that this compaction happened.
  if (c.via === 'command') await accepted($, st, opts, c, c.tokensBefore)
  const messages: SessionMessage[] = [{ role: 'user', text, toolUses: [] }]
  return c.tokensBefore === null ? { messages } : { messages, tokensBefore: c.tokensBefore }
}

/** Registers the mod's hooks; `options` are its userConfig values (enabled, loop_prefixes, min_context_percent, ledger). */
export const register: Register = (on, options) => {
  const opts = readOptions(options)
  const st = newState()

  on('session.start', async ($, e, next) => {
    await start($, st, opts)
    return next(e)
  })

  // A session is looping once a /loop prompt is typed (or dispatched, as a fleet session's first prompt) or a
  // scheduled wakeup fires its stored prompt; the loop prompt is what the prefixes are matched against.
  on('prompt.submit', async ($, e, next) => {
    const typed = loopPromptOf(e.text, e.command)
    if (typed !== null) st.loopPrompt = typed
    else if (e.origin.kind === 'scheduled-trigger' && e.text.trim() !== '') st.loopPrompt = e.text.trim()
    return next(e)
  })

  on('turn.start', async ($, e, next) => {
    if (e.agentId === undefined) st.loopEnding = false
    return next(e)
  })

  // A ScheduleWakeup call arms the next iteration with the loop prompt (making the session a looping one), or ends
  // the loop with stop:true. The first request after a boundary measures what the compaction left: tokensAfter.
  on('turn.step', async function* ($, e, next) {
    if (e.agentId !== undefined || !opts.enabled) return yield* next(e)
    const result = yield* next(e)
    const wake = wakeupOf(result.toolUses)
    if (wake.stop) st.loopEnding = true
    else if (wake.prompt !== null) st.loopPrompt = wake.prompt
    if (opts.ledger) await fillTokensAfter($, st, result.usage)
    return result
  })

  on('turn.complete', async ($, e, next) => {
    const result = await next(e)
    await turnComplete($, st, opts, e)
    return result
  })

  // Only the compaction this mod started is answered, with the one boundary message, so no summarizer request is
  // made. Its key is the in-flight call, or on the headless route the /compact argument the mod chose. Every other
  // compaction (the threshold's, a typed /compact, a subagent's) passes through untouched.
  on('session.compact', async ($, e, next) => {
    const c = st.compacting
    if (e.agentId !== undefined || c === null || c.answered) return next(e)
    if (c.via === 'command' && e.instructions !== c.mark) return next(e)
    return answerCompaction($, st, opts, c)
  })
}
