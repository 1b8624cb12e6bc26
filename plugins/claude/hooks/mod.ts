// The notesoup Claude Code mod's hooks (register.ts registers them): registers the notes, history and reset
// tools, attaches the notes boot block, watches the context budget and
// drives clean resets. All filesystem and shared-domain work (notes, history,
// boot, limits, the reset state machine of shared/reset) is done by the
// plugin-local helper binary; this module only maps Claude Code's events to
// helper operations and performs the actions the reset flow returns.
import type { EngineInterface, Hook } from 'claude-code'
import { contentText } from './common/format'
import { actionsOf, answerText, markerIn, type Action, type Limits, type ResetState } from './common/helper-client'
import { callHelper, type Caller, type HelperReply } from './helper'
import { RESET_TOOL, TOOL_PREFIX, TOOLS, type ToolHook } from './tools.gen'
import { startVaultSync } from './vaultsync'
import {
  claudeCommands, compactArgs, manualWarningText, completionEvent, CONTINUE_COMMAND, CUTOFF_TEXT, fresh, HISTORY_UNBOUND_NOTICE, historyUnbound,
  noContinuationText, processState, retainedBootOrdinal, selectsCurrent, transcriptCommitted, type ModState, type Origin, type PendingCommit,
} from './state'

/** The module's state for the loaded session (see state.ts). */
let S: ModState = fresh()

/** Test hook: the state, for assertions in plugins/claude/tests. */
export function modState(): ModState {
  return S
}

// ---- identity and the helper -------------------------------------------

/**
 * The caller for a helper call, with identity refreshed lazily from
 * $.session: a changed session id (after /clear, /resume, /branch) rebinds
 * the flow with session_changed, forgets the retained boot, the cap and the
 * head, and never lends the old transcript to the new session.
 */
async function caller($: EngineInterface, subagent = false): Promise<Caller> {
  const session = await $.session.id()
  const cwd = await $.session.cwd()
  if (session !== S.session) {
    const first = S.session === undefined
    S.session = session
    S.retained = undefined
    S.pending = undefined
    S.head = undefined
    S.warningDue = undefined
    S.warned = false
    S.committed = undefined
    if (!first) S.cap = ''
    await resetEvent($, { harness: 'claude', session, cwd }, { type: 'session_changed', session, ...(S.compactDisabled ? { compact_disabled: true } : {}) })
  }
  const c: Caller = { harness: 'claude', session, cwd }
  if (S.transcript && S.transcriptSession === session) c.transcript = S.transcript
  if (S.head) c.head = S.head
  if (subagent) c.subagent = true
  return c
}

/** Steps the persisted reset flow with one event; a helper failure is one refuse action. */
async function flow($: EngineInterface, event: Record<string, unknown>, subagent = false): Promise<Action[]> {
  const r = await resetEvent($, await caller($, subagent), event)
  if (!r.ok) {
    await $.ui.log(`notesoup: reset.event ${String(event.type)} failed: ${r.error.message}`, { to: 'debug' })
    return [{ kind: 'refuse', message: r.error.message }]
  }
  // The flow's texts are shared by every harness; name the commands as
  // Claude Code has them.
  return actionsOf(r.result).map((a) => (a.message ? { ...a, message: claudeCommands(a.message) } : a))
}

/**
 * Runs one reset.event and keeps what its answer says of step events, by
 * the shared rule (common/step-tracker): a false counts only from a call no
 * other reset.event overlapped; a failed call or an answer without the
 * field leaves steps to be sent.
 */
async function resetEvent($: EngineInterface, c: Caller, event: Record<string, unknown>): Promise<HelperReply> {
  return S.steps.track(c.session, () => callHelper($, 'reset.event', c, event), (r) => (r.ok ? r.result : undefined))
}

/** The persisted flow state, or undefined when the helper cannot say. */
async function flowState($: EngineInterface): Promise<ResetState | undefined> {
  const r = await callHelper($, 'reset.state', await caller($))
  return r.ok ? (r.result as ResetState) : undefined
}

/**
 * Builds the boot block for window `ordinal`, or an error message. A
 * session whose transcript Claude Code did not report is told that its
 * history is unavailable (the history tools refuse it).
 */
async function buildBoot($: EngineInterface, ordinal: number, sticky?: string, handoff?: string): Promise<{ text: string } | { error: string }> {
  const args: Record<string, unknown> = { ordinal }
  if (sticky) args.sticky = sticky
  if (handoff) args.handoff = handoff
  const c = await caller($)
  if (!c.transcript) args.notices = [HISTORY_UNBOUND_NOTICE]
  const r = await callHelper($, 'boot', c, args)
  if (!r.ok) return { error: r.error.message }
  return { text: answerText(r.result) }
}

// ---- session lifetime ----------------------------------------------------

export async function onSessionStart($: EngineInterface, e: Parameters<Hooks['session.start']>[1], next: Parameters<Hooks['session.start']>[2]) {
  // classic.SessionStart fires before the typed session.start: its
  // transcript binding survives the reset of the module state.
  const { transcript, transcriptSession } = S
  S = fresh()
  S.transcript = transcript
  S.transcriptSession = transcriptSession
  S.interactive = e.isInteractive
  if ((await $.env.get('NOTESOUP_DISABLED')) !== undefined) {
    S.disabled = true
    await $.ui.log('notesoup: NOTESOUP_DISABLED is set; the mod is off for this session', { to: 'debug' })
    return next(e)
  }
  if ((await $.env.get('DISABLE_COMPACT')) !== undefined) {
    S.compactDisabled = true
    await $.ui.log('notesoup: DISABLE_COMPACT is set; budget warnings and resets are off', { to: 'debug' })
  }
  // Not awaited: the vault's copy never delays the session (vaultsync.ts).
  startVaultSync($)
  // In parallel: each registration reconnects the plugin's MCP endpoint,
  // and session.start delays the first prompt.
  await Promise.all(TOOLS.map((t) => $.tool.register({ name: t.name, description: t.description, inputSchema: t.inputSchema, isDeferred: false })))
  await $.command.register({ name: 'notesoup', description: 'notesoup: show or set the runtime context cap (cap 100k | cap off)', argumentHint: 'cap [tokens|off]' })
  await caller($)
  return next(e)
}

export async function onClassicStart($: EngineInterface, e: Parameters<Hooks['classic.SessionStart']>[1], next: Parameters<Hooks['classic.SessionStart']>[2]) {
  // The documented transcript path binds current-session history; no path is guessed.
  if (typeof e.transcript_path === 'string' && e.transcript_path !== '') {
    S.transcript = e.transcript_path
    S.transcriptSession = e.session_id
  }
  // After a compaction the engine starts the new window with a classic
  // SessionStart (source "compact"): a fresh dispatch whose
  // $.session.messages() shows the conversation as it now stands.
  const p = S.pending
  if (p && e.source === 'compact') background($, checkMessagesEvidence($, p))
  return next(e)
}

export async function onSessionEnd($: EngineInterface, e: Parameters<Hooks['session.end']>[1], next: Parameters<Hooks['session.end']>[2]) {
  if (!S.disabled && S.session !== undefined) {
    await callHelper($, 'reset.event', { harness: 'claude', session: S.session }, { type: 'session_ended' })
  }
  // /clear and an in-session resume end the session without a new
  // session.start: what belongs to the process stays (state.ts).
  S = processState(S)
  return next(e)
}

// ---- tools -----------------------------------------------------------------

export async function serveTool($: EngineInterface, e: Parameters<ToolHook>[1], next: Parameters<ToolHook>[2]) {
  if (S.disabled) return next(e)
  const name = String(e.tool).slice(TOOL_PREFIX.length)
  const def = TOOLS.find((t) => t.name === name)
  if (!def) return next(e)
  const { tool: _t, tool_use_id: _id, agentId, ...rest } = e as unknown as Record<string, unknown>
  const subagent = agentId !== undefined
  if (name === RESET_TOOL) {
    const ev: Record<string, unknown> = { type: 'reset_requested' }
    if ('last_word' in rest) ev.last_word = rest.last_word
    if ('terminate' in rest) ev.terminate = rest.terminate
    const acts = await flow($, ev, subagent)
    const refused = acts.find((a) => a.kind === 'refuse')
    if (refused) return { deny: refused.message ?? 'empty_brain was refused' }
    return { result: 'The context window will be emptied when this turn ends; every tool call in this response still finishes. Your notes and last word carry over.' }
  }
  const { ...args } = rest
  delete args.consent
  const c = await caller($, subagent)
  if (def.op.startsWith('history.') && !subagent && selectsCurrent(args.session)) {
    // The current session is read only through what Claude Code reported
    // of it; the helper would otherwise guess the file and the branch.
    const why = historyUnbound({ transcript: c.transcript !== undefined, head: c.head !== undefined })
    if (why) return { deny: why }
  }
  const r: HelperReply = await callHelper($, def.op, c, args)
  if (!r.ok) return { deny: r.error.message }
  return { result: answerText(r.result) }
}

/**
 * Attaches a due budget warning to every main-agent tool result, whatever
 * the tool (Bash, Read, Edit, an MCP server's, notesoup's own): tool.call
 * wraps the whole call, tool.run and core included, and its `context` is
 * the reminder the model reads right after the result. The budget is
 * measured here too: the response that carried this call may be the one
 * that crossed the warning point. Below the warning point this costs no
 * helper process (the points are memoized, measure()).
 */
export async function onToolCall($: EngineInterface, e: Parameters<Hooks['tool.call']>[1], next: Parameters<Hooks['tool.call']>[2]) {
  const r = await next(e)
  if (S.disabled || e.agentId !== undefined || r.deny !== undefined) return r
  const text = await takeWarning($)
  if (text === undefined) return r
  return { ...r, context: [...(r.context ?? []), text] }
}

/**
 * Takes the due budget warning for delivery, measuring first when none is
 * due; marks it delivered in the flow. Undefined when none is due.
 */
async function takeWarning($: EngineInterface): Promise<string | undefined> {
  if (!S.warningDue) perform($, await checkBudget($))
  const text = S.warningDue
  if (text === undefined) return undefined
  // Taken before the await: a parallel tool result must not carry it too.
  S.warningDue = undefined
  S.warned = true
  await flow($, { type: 'warning_delivered' })
  return text
}

// ---- prompt context: the boot block ---------------------------------------

export async function onPromptContext($: EngineInterface, e: Parameters<Hooks['prompt.context']>[1], next: Parameters<Hooks['prompt.context']>[2]) {
  const r = await next(e)
  if (S.disabled) return r
  const st = await flowState($)
  const window = st?.window ?? 0
  // A compaction answer already holds this window's boot: do not repeat it.
  // After a resume or reload the module has forgotten; the transcript says.
  if (S.retained && S.retained.window === window) return r
  if (S.session) {
    const tail = await transcriptTail($)
    const ordinal = tail === undefined ? undefined : retainedBootOrdinal(tail, S.session)
    if (ordinal !== undefined) {
      S.retained = { window: ordinal, text: '' }
      return r
    }
  }
  const boot = await buildBoot($, window)
  if ('error' in boot) {
    await $.ui.log(`notesoup: boot block unavailable: ${boot.error}`, { to: 'debug' })
    return r
  }
  return { ...r, blocks: [...r.blocks, { name: 'notesoup', text: boot.text }] }
}

// ---- budget ------------------------------------------------------------------

/**
 * Resolves the budget points, reusing them while the threshold inputs (model,
 * cap, window, settings, environment) match; context fill alone never
 * invalidates them. Returns the limits and the measured tokens.
 */
async function measure($: EngineInterface): Promise<{ limits?: Limits; tokens?: number }> {
  const usage = await $.session.usage()
  const inputs = await thresholdInputs($)
  const key = JSON.stringify([inputs.model, S.cap, usage.context.window, inputs.settings, inputs.env])
  if (key !== S.limitsKey) {
    const r = await resolveLimits($, inputs, S.cap)
    S.limitsKey = key
    S.limits = r.ok ? (r.result as Limits) : { resolved: false, reason: r.error.message }
    if (!S.limits.resolved && !S.limitsLogged) {
      S.limitsLogged = true
      await $.ui.log(`notesoup: budget point unresolved (${S.limits.reason ?? 'no reason given'}); budget warnings skipped`, { to: 'debug' })
    }
  }
  return { limits: S.limits, tokens: usage.context.tokens }
}

/** The inputs the budget points are resolved from, beside the window and the cap. */
type ThresholdInputs = { model: string; settings: unknown; env: Record<string, string> }

/**
 * Reads the model, the merged settings and the environment the points
 * depend on: the variables Claude Code's own compaction point reads, and
 * DISABLE_COMPACT. Each is named literally, as the engine requires.
 */
async function thresholdInputs($: EngineInterface): Promise<ThresholdInputs> {
  const model = await $.session.model()
  const settings = await $.settings.read()
  const env: Record<string, string> = {}
  const put = (k: string, v: string | undefined) => { if (v !== undefined) env[k] = v }
  put('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE', await $.env.get('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'))
  put('CLAUDE_CODE_AUTO_COMPACT_WINDOW', await $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW'))
  put('DISABLE_AUTO_COMPACT', await $.env.get('DISABLE_AUTO_COMPACT'))
  put('DISABLE_COMPACT', await $.env.get('DISABLE_COMPACT'))
  return { model, settings, env }
}

/**
 * Asks the helper for the points under cap ("" for none): the budget and
 * /notesoup cap both come here, so what the command shows, and whether it
 * refuses a cap as too small, is what the budget will use.
 */
async function resolveLimits($: EngineInterface, inputs: ThresholdInputs, cap: string): Promise<HelperReply> {
  const summary = await $.session.usage({ breakdown: 'summary' })
  const args: Record<string, unknown> = { model: inputs.model, model_window: summary.context.window, settings: inputs.settings, env: inputs.env, usage: summary }
  if (cap) args.cap = cap
  return callHelper($, 'limits', await caller($), args)
}

/**
 * Checks the measured main context against the points: past the warning
 * point the warning is made due (once per window); past the hard point a
 * budget reset is requested, and no warning is made: the reset comes at
 * the next step, and a warning made now would be delivered in the next
 * window. With automatic resets off the warning counts down to the end of
 * the window instead (the native point is where the window is full when
 * Claude Code does not compact: thresholds.go) and says nothing will reset
 * it. Returns the flow's
 * actions.
 */
async function checkBudget($: EngineInterface): Promise<Action[]> {
  if (S.compactDisabled) return []
  const { limits, tokens } = await measure($)
  if (!limits?.resolved || tokens === undefined) return []
  const acts: Action[] = []
  const autoReset = limits.auto_reset !== false
  const hard = limits.hard !== undefined && tokens >= limits.hard
  if (hard) {
    acts.push(...(await flow($, { type: 'budget_hard', auto_reset_off: !autoReset })))
    if (autoReset) return acts
  }
  if (limits.warning !== undefined && tokens >= limits.warning && limits.warnings_enabled !== false && !S.warningDue && !S.warned) {
    const st = await flowState($)
    if (st?.warned) S.warned = true
    if (st && !st.warned) {
      let text: string | undefined
      if (autoReset) {
        const w = await callHelper($, 'text.warning', await caller($), { reset_tool: TOOL_PREFIX + RESET_TOOL, tokens_left: Math.max(0, (limits.hard ?? tokens) - tokens) })
        if (w.ok) text = answerText(w.result)
      } else {
        text = manualWarningText(TOOL_PREFIX + RESET_TOOL, (limits.native ?? limits.hard ?? tokens) - tokens)
      }
      // A delivery that raced this one wins.
      if (text !== undefined && !S.warned && !S.warningDue) S.warningDue = text
    }
  }
  return acts
}

// ---- turns -------------------------------------------------------------------

export async function onPromptSubmit($: EngineInterface, e: Parameters<Hooks['prompt.submit']>[1], next: Parameters<Hooks['prompt.submit']>[2]) {
  if (S.disabled || e.command) return next(e)
  const mine = e.origin.kind === 'plugin' && (e.origin as { name?: string }).name === $.plugin.name
  if (!mine) {
    await flow($, { type: 'input_accepted' })
    if (S.turnRunning) S.inputInTurn = true
  }
  let out = e
  if (S.warningDue && !mine) {
    out = { ...e, context: [...(e.context ?? []), S.warningDue] }
  }
  const r = await next(out)
  if (out !== e && !('drop' in r && r.drop !== undefined)) {
    S.warningDue = undefined
    S.warned = true
    await flow($, { type: 'warning_delivered' })
  }
  return r
}

export async function onTurnStart($: EngineInterface, e: Parameters<Hooks['turn.start']>[1], next: Parameters<Hooks['turn.start']>[2]) {
  if (S.disabled || e.agentId !== undefined) return next(e)
  const origin: Origin = S.submitted ?? 'natural'
  S.submitted = undefined
  S.turnRunning = true
  S.inputInTurn = false
  await flow($, { type: 'turn_started', origin })
  return next(e)
}

export async function* onTurnStep($: EngineInterface, e: Parameters<Hooks['turn.step']>[1], next: Parameters<Hooks['turn.step']>[2]) {
  if (S.disabled || e.agentId !== undefined) return yield* next(e)
  await checkBudget($)
  // A step cannot change the flow while the last answer says so (no cutoff
  // armed, the turn recorded as running): leaving it out saves a helper
  // process before this model request.
  const acts = S.steps.stepNeeded(S.session) ? await flow($, { type: 'step' }) : []
  if (S.inputInTurn) {
    S.inputInTurn = false
    await flow($, { type: 'input_delivered' })
  }
  if (acts.some((a) => a.kind === 'end_turn')) {
    // The whole tool batch has finished (this is the next step): end the
    // turn without a model request and without aborting anything.
    yield { kind: 'text' as const, index: 0, text: CUTOFF_TEXT }
    yield { kind: 'stop' as const, stopReason: 'end_turn' as const, usage: null }
    return { turnId: e.turnId, index: e.index, answer: CUTOFF_TEXT, toolUses: [], stopReason: 'end_turn' as const, usage: null }
  }
  return yield* next(e)
}

export async function onTurnComplete($: EngineInterface, e: Parameters<Hooks['turn.complete']>[1], next: Parameters<Hooks['turn.complete']>[2]) {
  if (S.disabled || e.agentId !== undefined) return next(e)
  S.turnRunning = false
  S.inputInTurn = false
  const acts = await flow($, { type: completionEvent(e.reason) })
  if (e.reason === 'answer') acts.push(...(await checkBudget($)))
  perform($, acts)
  return next(e)
}

// ---- the reset worker ------------------------------------------------------------

/**
 * Performs the flow's actions outside the held hook: the compaction command
 * and prompts are enqueued, not awaited, so a held turn.complete never waits
 * on the work it starts (a deadlock the engine refuses).
 */
function perform($: EngineInterface, acts: readonly Action[]): void {
  for (const a of acts) {
    if (a.kind === 'run_compaction' && a.marker) {
      // Both commands are queued now, in this order, while the session is
      // still bound (a -p run ends once its queue drains): the compaction,
      // then the continuation, which onContinueCommand lets through only
      // after a confirmed commit that permits one.
      background($, runCompaction($, a.marker))
      // Headless, the session ends once the queue drains: the continuation
      // must be queued now. Interactively it is queued after the commit.
      if (!S.interactive) background($, submitContinuation($))
    } else if (a.kind === 'send_continuation') {
      S.continuationReady = true
      if (S.interactive) background($, submitContinuation($))
    }
    else if (a.kind === 'report_dropped') $.ui.log(a.message ?? 'notesoup: the continuation prompt was dropped')
    else if (a.kind === 'refuse' && a.message) $.ui.log(`notesoup: ${a.message}`)
  }
}

/**
 * Lets work run outside the hook that started it. A failure there has no
 * caller to reach (the session may even have ended), so it goes to the
 * debug log instead of surfacing as an unhandled rejection.
 */
function background($: EngineInterface, work: Promise<unknown>): void {
  work.catch((err: unknown) => {
    try {
      $.ui.log(`notesoup: background work failed: ${String(err)}`, { to: 'debug' })
    } catch {
      // The session is gone; there is nobody left to tell.
    }
  })
}

/** Runs Claude's compaction command carrying the attempt's marker. */
async function runCompaction($: EngineInterface, marker: string): Promise<void> {
  try {
    await $.command.run({ command: 'compact', args: compactArgs(marker) })
  } catch (err) {
    await $.ui.log(`notesoup: the reset could not start (${String(err)}); it is retried after the next turn`, { to: 'debug' })
    await flow($, { type: 'compaction_failed', marker })
    return
  }
  // Interactive sessions expose the installed boot here; headless ones
  // commit from session.append (onAppend).
  // Interactively the command resolves before the rows are kept, and
  // neither session.append nor $.session.messages() show them on 2.1.332:
  // look for the kept rows in the transcript for a while. The command may
  // also resolve before our session.compact hook has run (queued), so the
  // wait covers an attempt not yet answered too.
  const session = S.session
  for (let i = 0; i < EVIDENCE_POLLS; i++) {
    if (S.settled === marker || S.session !== session) return
    const p = S.pending
    if (p && p.marker === marker && ((await checkMessagesEvidence($, p)) || (await checkTranscriptEvidence($, p)))) return
    await $.clock.sleep(EVIDENCE_POLL_MS)
  }
  // No evidence: the compaction never reached our hook, or the session
  // does not hold the boot unchanged (missing, or rewritten by a hook
  // above). The flow is told, so the request stays and is retried after
  // the next turn instead of cutting every later turn off without a reset.
  if (S.settled === marker || S.session !== session) return
  if (S.pending && S.pending.marker !== marker) return
  S.pending = undefined
  S.settled = marker
  await $.ui.log(`notesoup: the reset did not commit: no unchanged boot in the session ${(EVIDENCE_POLLS * EVIDENCE_POLL_MS) / 1000} s after its compaction (missing or rewritten); it is retried after the next turn`, { to: 'debug' })
  perform($, await flow($, { type: 'compaction_failed', marker }))
}

/**
 * How much of the transcript's end is read for commit evidence: the
 * boundary and the boot are the newest rows, and a boot block is bounded by
 * the helper's budget (tens of KiB); 1 MiB leaves room for the echo rows.
 */
const TRANSCRIPT_TAIL_BYTES = 1 << 20

/**
 * Commit evidence from the kept rows on disk: the last compact boundary in
 * the session's transcript is followed by our boot, unchanged, as the first
 * user row. Only the documented transcript_path of this session is read.
 */
async function checkTranscriptEvidence($: EngineInterface, p: PendingCommit): Promise<boolean> {
  const text = await transcriptTail($)
  if (text === undefined || !transcriptCommitted(text, p.boot)) return false
  await commit($, p.marker)
  return true
}

/** The end of this session's transcript (its documented path only), or undefined. */
async function transcriptTail($: EngineInterface): Promise<string | undefined> {
  const path = S.transcript
  if (!path || S.transcriptSession !== S.session) return undefined
  try {
    const st = await $.fs.stat(path)
    const offset = Math.max(0, st.size - TRANSCRIPT_TAIL_BYTES)
    return String(await $.fs.read(path, { offset, length: st.size - offset }))
  } catch {
    return undefined
  }
}

/**
 * How long runCompaction looks for commit evidence before it reports the
 * attempt failed: 120 × 250 ms = 30 s, far past the engine's swap (under a
 * second observed, on a loaded machine too) and short enough that a lost
 * compaction is retried at the next turn.
 */
const EVIDENCE_POLLS = 120
const EVIDENCE_POLL_MS = 250

/**
 * Queues the continuation through the plugin's prompt command
 * commands/continue.md: $.prompt.submit has no session to submit to under
 * -p, while $.command.run is queued and runs once the session is idle,
 * interactively and headless alike. A command that cannot be queued after a
 * commit is reported to the flow as a dropped continuation.
 */
async function submitContinuation($: EngineInterface): Promise<void> {
  try {
    await $.command.run({ command: CONTINUE_COMMAND })
  } catch (err) {
    await $.ui.log(`notesoup: continuation prompt not submitted (${String(err)})`, { to: 'debug' })
    if (S.continuationReady) {
      S.continuationReady = false
      perform($, await flow($, { type: 'continuation_dropped' }))
    }
  }
}

/**
 * The queued continuation runs only after a confirmed commit that permits
 * one (not after STOP, terminate:true, natural input or a failed commit);
 * otherwise it is answered here and no model request is made.
 */
export async function onContinueCommand($: EngineInterface, e: Parameters<Hooks['command.run']>[1], next: Parameters<Hooks['command.run']>[2]) {
  if (S.disabled) return disabledAnswer(e.command)
  const p = S.pending
  if (!S.continuationReady && p) await checkMessagesEvidence($, p)
  // What the person (and a script reading a -p run's final text) sees when
  // no continuation runs: whether the window was reset, and why it ends.
  if (!S.continuationReady) return { text: noContinuationText(S.committed), isTextDisplayOnly: true as const }
  S.continuationReady = false
  S.submitted = 'continuation'
  return next(e)
}

/**
 * Interactive commit evidence: the installed boot, unchanged, is the first
 * user message the session now holds (engine notices may precede it).
 */
async function checkMessagesEvidence($: EngineInterface, p: PendingCommit): Promise<boolean> {
  const msgs = await $.session.messages()
  if (!Array.isArray(msgs)) return false
  const first = (msgs as { role?: string; text?: string }[]).find((m) => m.role === 'user')
  if (first?.text === p.boot) {
    await commit($, p.marker)
    return true
  }
  return false
}

/** Confirms a commit with evidence and performs what follows (one continuation at most). */
async function commit($: EngineInterface, marker: string): Promise<void> {
  if (!S.pending || S.pending.marker !== marker) return
  S.pending = undefined
  S.settled = marker
  newWindow()
  const acts = await flow($, { type: 'compaction_committed', marker, evidence: true })
  S.committed = acts.find((a) => a.kind === 'nothing' && a.message?.startsWith('committed'))?.message ?? (acts.some((a) => a.kind === 'send_continuation') ? 'committed' : undefined)
  perform($, acts)
}

/**
 * Forgets what was due in the window that just ended: a warning made for
 * it ("… 0 tokens left") must not reach the next window, nor mark the next
 * window warned so that its own warning never comes.
 */
function newWindow(): void {
  S.warningDue = undefined
  S.warned = false
}

// ---- compaction ------------------------------------------------------------------

export async function onCompact($: EngineInterface, e: Parameters<Hooks['session.compact']>[1], next: Parameters<Hooks['session.compact']>[2]) {
  if (S.disabled || e.agentId !== undefined) return next(e)
  if (e.trigger === 'precompute') return { skip: 'notesoup replaces compaction summaries with clean resets' }
  if (e.trigger === 'auto') {
    const acts = await flow($, { type: 'native_compaction' })
    const boot = acts.find((a) => a.kind === 'install_boot')
    if (!boot) return next(e)
    // The flow starts a new window on every native compaction, summary or boot.
    newWindow()
    const built = await buildBoot($, boot.window ?? 0, boot.last_word, boot.handoff_text)
    if ('error' in built) {
      // Fall back to Claude's own summary; the retained boot is gone.
      S.retained = undefined
      await $.ui.log(`notesoup: boot build failed (${built.error}); Claude's summary is used`, { to: 'debug' })
      return next(e)
    }
    S.retained = { window: boot.window ?? 0, text: built.text }
    return { messages: [{ role: 'user' as const, text: built.text, toolUses: [] }] }
  }
  const marker = markerIn(e.instructions)
  const acts = await flow($, { type: 'compaction_started', ...(marker ? { marker } : {}) })
  const refused = acts.find((a) => a.kind === 'refuse')
  if (refused) {
    await $.ui.log(`notesoup: ${refused.message ?? 'compaction vetoed'}`)
    return { skip: refused.message ?? 'vetoed by notesoup' }
  }
  const boot = acts.find((a) => a.kind === 'install_boot')
  if (!boot) return next(e)
  const built = await buildBoot($, boot.window ?? 0, boot.last_word, boot.handoff_text)
  if ('error' in built) {
    S.settled = marker
    await flow($, { type: 'compaction_vetoed', marker })
    return { skip: `notesoup: the reset was cancelled because the boot block could not be built: ${built.error}` }
  }
  S.retained = { window: boot.window ?? 0, text: built.text }
  S.pending = { marker, boot: built.text, window: boot.window ?? 0, boundarySeen: false }
  return { messages: [{ role: 'user' as const, text: built.text, toolUses: [] }] }
}

/**
 * Tracks the main loop's head for history, and the headless commit evidence:
 * a kept compact boundary followed by our boot row, unchanged.
 */
export async function onAppend($: EngineInterface, e: Parameters<Hooks['session.append']>[1], next: Parameters<Hooks['session.append']>[2]) {
  const r = await next(e)
  if (S.disabled || e.agentId !== undefined || !r || 'deny' in r) return r
  S.head = r.uuid
  const p = S.pending
  if (p) {
    const m = r.message as { type?: string; subtype?: string; content?: readonly unknown[] }
    if (m.type === 'system' && e.door === 'compaction') p.boundarySeen = true
    else if (p.boundarySeen && m.type === 'user' && contentText(m.content) === p.boot) await commit($, p.marker)
  }
  return r
}

// ---- commands --------------------------------------------------------------------

export async function onCapCommand($: EngineInterface, e: Parameters<Hooks['command.run']>[1], next: Parameters<Hooks['command.run']>[2]) {
  if (S.disabled) return next(e)
  const words = (e.args ?? '').trim().split(/\s+/).filter((w) => w !== '')
  if (words.length === 0 || (words[0] === 'cap' && words.length === 1)) {
    return { text: S.cap ? `notesoup cap: ${S.cap}` : 'notesoup cap: off (no runtime cap)' }
  }
  if (words[0] !== 'cap' || words.length !== 2) {
    return { text: 'usage: /notesoup cap [tokens|off] (e.g. /notesoup cap 100k)' }
  }
  const value = words[1] ?? ''
  if (value === 'off') {
    S.cap = ''
    S.limitsKey = undefined
    return { text: 'notesoup cap: off' }
  }
  // The same inputs as the budget (measure): the environment moves the
  // points, and decides whether a cap leaves room for the margins.
  const r = await resolveLimits($, await thresholdInputs($), value)
  if (!r.ok) return { text: `notesoup cap refused: ${r.error.message}` }
  S.cap = value
  S.limitsKey = undefined
  const l = r.result as Limits
  return { text: `notesoup cap: ${value} (warning at ${l.warning ?? '?'} tokens, reset at ${l.hard ?? '?'})` }
}

/**
 * /notesoup:empty and /notesoup:fresh-window (the prompt commands
 * commands/empty.md and commands/fresh-window.md): STOP for the pending or in-flight reset. While
 * idle the command's own turn is the hidden close-out, its text the shared
 * close-out (text.closeout: a person asked, so no "nearly full" and no
 * countdown), so the model can save notes; the reset follows when that
 * turn completes. While busy the current turn is the close-out. The
 * close-out is the command's own turn because a command.run hook cannot
 * queue another command (the engine refuses it).
 */
export async function onStopCommand($: EngineInterface, e: Parameters<Hooks['command.run']>[1], next: Parameters<Hooks['command.run']>[2]) {
  // The static commands (commands/*.md) are listed even when the mod is
  // off; passed on, /notesoup:empty would send the model an empty prompt.
  if (S.disabled) return disabledAnswer(e.command)
  const name = `/${String(e.command)}`
  const acts = await flow($, { type: 'manual_stop' })
  const refused = acts.find((a) => a.kind === 'refuse')
  if (refused) return { text: `${name} cannot run: ${refused.message ?? 'refused'}`, isTextDisplayOnly: true as const }
  if (!acts.some((a) => a.kind === 'submit_closeout')) {
    perform($, acts)
    return { text: `notesoup: ${name} recorded; the window is reset when the current turn ends` }
  }
  const w = await callHelper($, 'text.closeout', await caller($), { reset_tool: TOOL_PREFIX + RESET_TOOL })
  if (!w.ok) {
    await flow($, { type: 'closeout_failed' })
    return { text: `${name}: the close-out could not load (${w.error.message}); nothing was reset, try again` }
  }
  S.submitted = 'closeout'
  try {
    return await next({ ...e, args: answerText(w.result) })
  } catch (err) {
    S.submitted = undefined
    await flow($, { type: 'closeout_failed' })
    return { text: `${name}: the close-out was not submitted (${String(err)}); nothing was reset, try again` }
  }
}

/** What a plugin command answers while NOTESOUP_DISABLED turns the mod off. */
function disabledAnswer(command: string) {
  return { text: `/${command}: notesoup is disabled in this session (NOTESOUP_DISABLED is set); nothing was sent or reset. Unset NOTESOUP_DISABLED and start a new session to use it.`, isTextDisplayOnly: true as const }
}

type Hooks = {
  [K in 'session.start' | 'tool.call' | 'session.end' | 'classic.SessionStart' | 'prompt.context' | 'prompt.submit' | 'turn.start' | 'turn.step' | 'turn.complete' | 'session.compact' | 'session.append' | 'command.run']: Hook<K>
}
