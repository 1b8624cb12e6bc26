// The world beneath the mod in its engine tests: an in-memory file system, a fixed clock, a session with a settable
// context fill, and a record of everything the mod asked of the engine. Nothing sits beneath a test's hooks, so each
// `$` call the mod makes is answered here.
import type { On, PluginOptions, TurnStepResult } from 'claude-code'
import { mock, type Engine, type Plugin } from 'claude-code/testing'

/** The test session's id; its run key is `abcd1234`. */
export const SESSION_ID = 'abcd1234-5678-4abc-9def-0123456789ab'
/** The test session's root. */
export const ROOT = '/proj'
/** Where the mod must keep the test session's ledger. */
export const LEDGER = `${ROOT}/tmp/loop-boundary-${SESSION_ID}.jsonl`
/** The /auto run-state file the boundary message must name. */
export const STATE_FILE = `${ROOT}/tmp/auto-state-abcd1234.json`
/** The mocked clock's time, stamped on every row. */
export const NOW = Date.UTC(2026, 0, 2, 3, 4, 5)

/** What the mod did, as the world beneath it saw it. */
export type World = {
  files: Map<string, string>
  logs: string[]
  commands: { command: string; args?: string }[]
  /** Compactions that reached beneath the mod (core's summarizer, in a session). */
  beneath: { trigger?: string; instructions?: string; agentId?: string }[]
  /** The context the next `$.session.usage()` reports. */
  context: { tokens?: number; window: number; percent?: number }
  /** What the next model step answers beneath the mod. */
  next: StepAnswer
}

/** A model step's answer, less the ids the step carries. */
export type StepAnswer = Omit<TurnStepResult, 'turnId' | 'index'>

/** A step that asked for nothing and reported the request's usage. */
export function answer(text: string, inputTokens: number | null, toolUses: TurnStepResult['toolUses'] = []): StepAnswer {
  return {
    answer: text,
    toolUses,
    stopReason: toolUses.length > 0 ? 'tool_use' : 'end_turn',
    usage: inputTokens === null ? null : { input_tokens: inputTokens, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, model: 'claude-opus-5-5' },
  }
}

/** Registers the world's answers on the test's `on`. */
export function world(on: On, files: Record<string, string> = {}): World {
  const w: World = {
    files: new Map(Object.entries(files)),
    logs: [],
    commands: [],
    beneath: [],
    context: { tokens: 72791, window: 1000000, percent: 7 },
    next: answer('', 1000),
  }
  mock.clock(on, { now: NOW })
  on('session.id', () => ({ value: SESSION_ID }))
  on('session.root', () => ({ value: ROOT }))
  on('session.usage', () => ({ value: { startedAt: 0, context: w.context, rateLimits: [] } }))
  on('fs.exists', (_$, e) => ({ value: w.files.has(e.path) }))
  on('fs.read', (_$, e) => ({ value: w.files.get(e.path) ?? '' }))
  on('fs.write', (_$, e) => {
    w.files.set(e.path, e.text)
    return { value: undefined }
  })
  on('ui.log', (_$, e) => {
    w.logs.push(e.text)
    return { value: undefined }
  })
  on('command.run', (_$, e) => {
    w.commands.push({ command: e.command, ...(e.args !== undefined ? { args: e.args } : {}) })
    return {}
  })
  on('session.compact', (_$, e) => {
    w.beneath.push({
      ...(e.trigger !== undefined ? { trigger: e.trigger } : {}),
      ...(e.instructions !== undefined ? { instructions: e.instructions } : {}),
      ...(e.agentId !== undefined ? { agentId: e.agentId } : {}),
    })
    return { messages: [{ role: 'user', text: 'core summary', toolUses: [] }] }
  })
  on('session.start', (_$, e) => ({ cwd: e.cwd }))
  on('prompt.submit', (_$, e) => ({ text: e.text }))
  on('turn.start', (_$, e) => ({ turnId: e.turnId }))
  on('turn.complete', (_$, e) => ({ text: e.answer }))
  on('turn.step', async function* (_$, e) {
    return { ...w.next, turnId: e.turnId, index: e.index }
  })
  return w
}

/** The ledger's rows as objects. */
export function rows(w: World): Record<string, unknown>[] {
  const text = w.files.get(LEDGER)
  if (text === undefined) return []
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

/** Starts the session as the engine does before the first prompt. */
export async function start($: Engine): Promise<void> {
  await $.session.start({ cwd: ROOT, surface: null, isInteractive: false })
}

/** Submits a prompt from the host (`-p`), parsed as the engine parses a slash command. */
export async function typed($: Engine, text: string): Promise<void> {
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text)
  const command = m !== null && m[1] !== undefined ? { command: { name: m[1], args: m[2] ?? '' } } : {}
  await $.prompt.submit({ text, ...command, wait: false, origin: { kind: 'sdk' } })
}

/** A scheduled wakeup firing its stored prompt. */
export async function wakeup($: Engine, text: string): Promise<void> {
  await $.prompt.submit({ text, isMeta: true, wait: false, origin: { kind: 'scheduled-trigger' } })
}

/** One model step of a turn, answered beneath by `result`, read to its end as the engine reads it. */
export async function step($: Engine, w: World, turnId: string, result: StepAnswer, agentId?: string): Promise<void> {
  w.next = result
  const stream = $.turn.step({ turnId, index: 0, model: 'claude-opus-5-5', messageCount: 1, ...(agentId !== undefined ? { agentId } : {}) })
  for await (const _chunk of stream) {
    // the chunks are not under test
  }
  await stream.result
}

/** A main-loop (or, with agentId, a subagent's) turn that ended with `answer`. */
export async function complete(
  $: Engine,
  turnId: string,
  answer: string,
  how: { reason?: 'answer' | 'aborted' | 'error'; agentId?: string } = {},
): Promise<void> {
  const reason = how.reason ?? 'answer'
  await $.turn.start({ text: 'x', turnId, ...(how.agentId !== undefined ? { agentId: how.agentId } : {}) })
  await $.turn.complete({
    answer,
    durationMs: 5,
    isAborted: reason === 'aborted',
    turnId,
    reason,
    ...(how.agentId !== undefined ? { agentId: how.agentId } : {}),
  })
}

/**
 * A plugin above the mod that reports every compaction's result as a `$.ui.log` line starting `COMPACTED `, so a
 * test can read the boundary message the mod answered with. Self-contained, as an inline plugin must be.
 */
export const observer: Plugin = {
  name: 'observer',
  tier: 'prepend',
  register(on) {
    on('session.compact', async ($, e, next) => {
      // A plugin's own $.session.compact() under the test kit carries no transcript; a rewrite must hand down at
      // least one message, so the observer hands down a stand-in (the mod under test does not read it).
      const r = Array.isArray(e.messages) ? await next(e) : await next({ ...e, messages: [{ role: 'user', text: 'iteration transcript', toolUses: [] }] })
      $.ui.log('COMPACTED ' + JSON.stringify({ instructions: e.instructions ?? null, result: r }))
      return r
    })
  },
}

/** A plugin above the mod that vetoes every compaction, as a guard mod may. */
export const veto: Plugin = {
  name: 'veto',
  tier: 'prepend',
  register(on) {
    on('session.compact', async () => ({ skip: 'vetoed by a guard' }))
  },
}

/** The options a test gives the mod, its manifest's defaults otherwise. */
export function options(o: PluginOptions): { options: PluginOptions } {
  return { options: o }
}
