// The reset flow at the hooks-module layer: for each scenario of the seed's
// validation list, drive the Claude Code events and check that the mod sends
// exactly the events shared/reset expects (flow.gen.ts, generated from the
// real flow) and performs the actions it gets back.
import { describe, expect, mock, test } from 'claude-code/testing'
import type { Engine, MockClock } from 'claude-code/testing'
import { canon, FAKE_CLOSEOUT, fakeBoot, holdNext, install, type Fake } from './fake'
import { SCENARIOS } from './flow.gen'

const MARKER = 'notesoup-reset:1:2'
const CUTOFF = 'notesoup: the context window is being reset now.'

async function startSession($: Engine) {
  await $.session.start({ cwd: '/proj', surface: null, isInteractive: false } as never)
}

async function turnStart($: Engine, turnId = 't1') {
  await $.turn.start({ text: 'go', turnId } as never)
}

/** Drains one turn.step stream, including its final return value. */
async function step($: Engine, turnId = 't1', index = 0) {
  const s = $.turn.step({ turnId, index, model: 'claude-opus-5-5', messageCount: 1 } as never)
  const chunks: unknown[] = []
  let n = await s.next()
  while (!n.done) {
    chunks.push(n.value)
    n = await s.next()
  }
  return { chunks, result: n.value as unknown as { answer?: string; stopReason?: string } }
}

async function complete($: Engine, reason = 'answer', turnId = 't1') {
  await $.turn.complete({ answer: 'done', durationMs: 1, isAborted: reason === 'aborted', turnId, reason } as never)
}

async function emptyBrain($: Engine, args: Record<string, unknown>) {
  return $.tool.run({ tool: 'mcp__notesoup__empty_brain', tool_use_id: 'toolu_r', ...args } as never)
}

/** Our compaction, as the engine raises it for the queued /compact. */
async function compact($: Engine, instructions?: string, trigger = 'manual') {
  return $.session.compact({ trigger, ...(instructions ? { instructions } : {}), messages: [] } as never) as Promise<{ messages?: { text?: string }[]; skip?: string }>
}

/** The rows the engine keeps after a compaction answered by a hook. */
async function keep($: Engine, boot: string) {
  await $.session.append({ message: { type: 'system', content: [] }, door: 'compaction', uuid: 'b1' } as never)
  await $.session.append({ message: { type: 'user', content: [{ type: 'text', text: boot }] }, door: 'compaction', uuid: 'u1' } as never)
}

/** Runs a slash command as the person (or the engine's queue) would. */
async function cmd($: Engine, command: string, args = '') {
  return $.command.run({ command, args, origin: { kind: 'composer' }, presentation: 'visible' } as never)
}

/** Runs the queued continuation command as the engine does once idle. */
async function runContinuation($: Engine) {
  return cmd($, 'notesoup:continue')
}

/**
 * Waits until cond holds: work the mod starts outside a hook (queued
 * commands) settles a few event-loop turns later.
 */
async function until(clock: MockClock, cond: () => boolean, what: string) {
  for (let i = 0; i < 50 && !cond(); i++) await clock.settle()
  if (!cond()) throw new Error(`timed out waiting for ${what}`)
}

function settle(f: Fake) {
  expect(f.errors).toEqual([])
  expect(f.steps.map((s) => canon(s.event))).toEqual([])
}

/** A whole tool reset: the tool call, the cutoff, completion, compaction, kept rows. */
async function toolReset($: Engine, f: Fake, args: Record<string, unknown>) {
  await startSession($)
  await turnStart($)
  const first = await step($)
  expect(first.result.answer).toBe('model text')
  const tool = await emptyBrain($, args)
  expect(tool.result).toContain('emptied when this turn ends')
  const cut = await step($, 't1', 1)
  expect(cut.result).toEqual({ turnId: 't1', index: 1, answer: CUTOFF, toolUses: [], stopReason: 'end_turn', usage: null })
  expect(cut.chunks).toContainEqual({ kind: 'stop', stopReason: 'end_turn', usage: null })
  await complete($)
  expect(f.commands[0]?.command).toBe('compact')
  expect(f.commands[0]?.args).toContain(MARKER)
  const c = await compact($, f.commands[0]?.args)
  const boot = c.messages?.[0]?.text ?? ''
  expect(boot.startsWith('BOOT ordinal=1')).toBe(true)
  await keep($, boot)
  return boot
}

describe('empty_brain terminate', () => {
  test('omitted: one commit, then one continuation', async ($, on) => {
    const f = install(on, 'reset_terminate_omitted')
    await toolReset($, f, {})
    const before = f.commands.length
    await runContinuation($)
    expect(f.commands.slice(before)).toEqual([{ command: 'notesoup:continue' }])
    settle(f)
  })
  test('explicit false: one commit, then one continuation; the last word reaches the boot', async ($, on) => {
    const f = install(on, 'reset_terminate_false')
    const boot = await toolReset($, f, { last_word: 'check the plan', terminate: false })
    expect(boot).toContain('sticky=check the plan')
    const before = f.commands.length
    await runContinuation($)
    expect(f.commands.slice(before)).toEqual([{ command: 'notesoup:continue' }])
    settle(f)
  })
  test('explicit true: one commit and no continuation request', async ($, on) => {
    const f = install(on, 'reset_terminate_true')
    await toolReset($, f, { last_word: 'bye', terminate: true })
    const before = f.commands.length
    const r = await runContinuation($)
    // A -p run ends with this text: it says the reset committed.
    expect(r.text).toBe('notesoup: the context window was reset; it ends here as asked (empty_brain terminate: true), no continuation.')
    expect(f.commands.slice(before)).toEqual([])
    settle(f)
  })
})

test('invalid boolean: refused before anything is recorded, no cutoff', async ($, on) => {
  const f = install(on, 'invalid_boolean')
  await startSession($)
  await turnStart($)
  await step($)
  const r = await emptyBrain($, { terminate: 'yes' })
  expect(r.deny).toContain('terminate must be true or false')
  const next = await step($, 't1', 1)
  expect(next.result.answer).toBe('model text')
  await complete($)
  expect(f.commands).toEqual([])
  settle(f)
})

test('first request wins: the second call cannot replace last_word or terminate', async ($, on) => {
  const f = install(on, 'first_request_wins')
  await startSession($)
  await turnStart($)
  await step($)
  await emptyBrain($, { last_word: 'first' })
  await emptyBrain($, { last_word: 'second', terminate: true })
  await step($, 't1', 1)
  await complete($)
  const c = await compact($, f.commands[0]?.args)
  const boot = c.messages?.[0]?.text ?? ''
  expect(boot).toContain('sticky=first')
  await keep($, boot)
  const before = f.commands.length
  await runContinuation($)
  expect(f.commands.slice(before)).toEqual([{ command: 'notesoup:continue' }])
  settle(f)
})

test('manual STOP while idle: a close-out turn, then a reset without continuation', async ($, on) => {
  const f = install(on, 'manual_stop_idle')
  await startSession($)
  await cmd($, 'notesoup:empty')
  // The command's own turn is the close-out, its text the shared close-out
  // (a person asked), never the budget warning.
  expect(f.commands).toEqual([{ command: 'notesoup:empty', args: FAKE_CLOSEOUT }])
  expect(f.requests.filter((r) => r.op === 'text.warning')).toEqual([])
  await turnStart($, 't2')
  await step($, 't2')
  await complete($, 'answer', 't2')
  const queued = f.commands.find((c) => c.command === 'compact')
  const c = await compact($, queued?.args)
  await keep($, c.messages?.[0]?.text ?? '')
  const before = f.commands.length
  const r = await runContinuation($)
  expect(r.text).toContain('the context window was reset; it ends here as asked (/notesoup:empty')
  expect(f.commands.slice(before)).toEqual([])
  settle(f)
})

test('STOP consumed by native automatic compaction: boot answered, no second reset', async ($, on) => {
  const f = install(on, 'stop_consumed_by_native')
  await startSession($)
  await turnStart($)
  await step($)
  await emptyBrain($, {})
  const stop = await cmd($, 'notesoup:fresh-window')
  expect(stop.text).toContain('reset when the current turn ends')
  expect(f.commands).toEqual([])
  const c = await compact($, undefined, 'auto')
  expect(c.messages?.[0]?.text).toBe(fakeBoot({ ordinal: 1, handoff: (SCENARIOS.stop_consumed_by_native?.find((x) => x.event.type === 'native_compaction')?.actions[0] as { handoff_text?: string }).handoff_text }))
  const cut = await step($, 't1', 1)
  expect(cut.result.stopReason).toBe('end_turn')
  await complete($)
  expect(f.commands.filter((x) => x.command === 'compact')).toEqual([])
  settle(f)
})

test('answers out of order: a stale "steps need not be sent" cannot hide the cutoff', async ($, on) => {
  const f = install(on, 'overlapping_answers')
  const clock = mock.clock(on)
  await startSession($)
  await turnStart($)
  await step($) // the flow answered turn_started with step_needed false: not sent
  // A subagent's empty_brain is applied first and answered last.
  const release = holdNext(f, 'reset.event')
  const sub = $.tool.run({ tool: 'mcp__notesoup__empty_brain', tool_use_id: 'toolu_s', agentId: 'a1' } as never)
  await until(clock, () => f.requests.filter((r) => r.op === 'reset.event').length === 3, 'the subagent event')
  const main = await emptyBrain($, {})
  expect(main.result).toContain('emptied when this turn ends')
  release()
  expect((await sub).deny).toContain('subagent')
  // The subagent's answer (step_needed false) overlapped the main one: the
  // step is sent and the armed cutoff ends the turn.
  const cut = await step($, 't1', 1)
  expect(cut.result.stopReason).toBe('end_turn')
  await complete($)
  expect(f.commands[0]?.command).toBe('compact')
  const c = await compact($, f.commands[0]?.args)
  await keep($, c.messages?.[0]?.text ?? '')
  settle(f)
})

test('accepted natural input releases the cutoff and owns the continuation', async ($, on) => {
  const f = install(on, 'natural_input')
  await startSession($)
  await turnStart($)
  await step($)
  await emptyBrain($, {})
  await $.prompt.submit({ text: 'actually, also do X', wait: false, turnId: 't1', origin: { kind: 'composer' } } as never)
  const next = await step($, 't1', 1)
  expect(next.result.answer).toBe('model text')
  await complete($)
  const queued = f.commands.find((c) => c.command === 'compact')
  const c = await compact($, queued?.args)
  await keep($, c.messages?.[0]?.text ?? '')
  const before = f.commands.length
  await runContinuation($)
  expect(f.commands.slice(before)).toEqual([])
  settle(f)
})

test('failed commit: the rejected command is reported, the request retried after the next turn', async ($, on) => {
  const f = install(on, 'failed_commit_retried')
  const clock = mock.clock(on)
  f.failCommand = 'compact'
  await startSession($)
  await turnStart($)
  await step($)
  await emptyBrain($, {})
  await step($, 't1', 1)
  await complete($)
  await until(clock, () => f.steps.length === 3, 'compaction_failed')
  // Let the module hear the answer before the next turn: an event still in
  // flight would overlap turn_started, and the module then sends the next
  // step to be safe, which this scenario does not list.
  await clock.settle()
  await turnStart($, 't2')
  await step($, 't2')
  await complete($, 'answer', 't2')
  await until(clock, () => f.commands.filter((c) => c.command === 'compact').length === 2, 'the retry')
  settle(f)
})

test('close-out failure (the close-out cannot load) cancels the request so the command can retry', async ($, on) => {
  const f = install(on, 'closeout_submission_fails')
  f.failOps = ['text.closeout']
  await startSession($)
  const r = await cmd($, 'notesoup:empty')
  expect(r.text).toContain('try again')
  expect(f.commands).toEqual([])
  f.failOps = []
  await cmd($, 'notesoup:empty')
  expect(f.commands).toEqual([{ command: 'notesoup:empty', args: FAKE_CLOSEOUT }])
  settle(f)
})

test('session change discards the pending reset: the next step is not cut off', async ($, on) => {
  const f = install(on, 'session_change')
  await startSession($)
  await turnStart($)
  await step($)
  await emptyBrain($, {})
  f.session = 's2'
  const next = await step($, 't1', 1)
  expect(next.result.answer).toBe('model text')
  settle(f)
})

test('user /compact is vetoed with a notice', async ($, on) => {
  const f = install(on, 'user_compact_vetoed')
  await startSession($)
  const c = await compact($, 'keep the greeting')
  expect(c.skip).toContain('/compact is vetoed')
  expect(c.skip).toContain('Use /notesoup:empty (or /notesoup:fresh-window)')
  expect(f.logs.join('\n')).toContain('/compact is vetoed')
  settle(f)
})

test('a command receipt is not commit evidence; kept rows are, and only with the unchanged boot', async ($, on) => {
  const f = install(on, 'reset_terminate_omitted')
  await startSession($)
  await turnStart($)
  await step($)
  await emptyBrain($, {})
  await step($, 't1', 1)
  await complete($)
  const c = await compact($, f.commands[0]?.args)
  const boot = c.messages?.[0]?.text ?? ''
  // Receipt only: the continuation must not run.
  let r = await runContinuation($)
  expect(r.text).toContain('was not reset (the reset did not commit); no continuation')
  // A rewritten boot is no evidence either.
  await $.session.append({ message: { type: 'system', content: [] }, door: 'compaction', uuid: 'b1' } as never)
  await $.session.append({ message: { type: 'user', content: [{ type: 'text', text: boot + ' (rewritten)' }] }, door: 'compaction', uuid: 'u0' } as never)
  r = await runContinuation($)
  expect(r.text).toContain('no continuation')
  await $.session.append({ message: { type: 'user', content: [{ type: 'text', text: boot }] }, door: 'compaction', uuid: 'u1' } as never)
  const before = f.commands.length
  await runContinuation($)
  expect(f.commands.slice(before)).toEqual([{ command: 'notesoup:continue' }])
  settle(f)
})
