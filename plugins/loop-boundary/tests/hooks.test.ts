// The mod as the engine drives it: every way a session becomes a looping one, every boundary and pass case with its
// ledger row, the compaction the mod answers itself, the ones it leaves alone, tokensAfter, and the ledger reload.
import { describe, expect, test } from 'claude-code/testing'
import {
  LEDGER,
  NOW,
  SESSION_ID,
  STATE_FILE,
  answer,
  complete,
  observer,
  options,
  rows,
  start,
  step,
  typed,
  veto,
  wakeup,
  world,
} from './world'

const TS = new Date(NOW).toISOString()
const OUTCOME = 'Merged.\nSHIPPED-MERGE: BF-1'

function boundary(turnId: string, tokensBefore: number, loopPrompt = '/auto', outcome = 'SHIPPED-MERGE: BF-1'): Record<string, unknown> {
  return { ts: TS, session: SESSION_ID, event: 'boundary', accepted: true, outcome, tokensBefore, tokensAfter: null, path: 'turn-complete', nearClear: true, turnId, loopPrompt }
}

function pass(reason: string, turnId: string, extra: Record<string, unknown> = {}, loopPrompt: string | null = '/auto'): Record<string, unknown> {
  return { ts: TS, session: SESSION_ID, event: 'pass', reason, ...extra, turnId, loopPrompt }
}

describe('boundaries', () => {
  test('a typed /loop prompt makes the session looping: the outcome turn is compacted by the mod alone', { plugins: [observer] }, async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop 1m /auto')
    await complete($, 't1', OUTCOME)
    expect(rows(w)).toEqual([boundary('t1', 72791)])
    // No summarizer: nothing beneath the mod heard the compaction.
    expect(w.beneath).toEqual([])
    const compacted = w.logs.find((l) => l.startsWith('COMPACTED '))
    expect(compacted).toBeDefined()
    const r = JSON.parse((compacted ?? '').slice('COMPACTED '.length)) as { result: { messages: { role: string; text: string }[]; tokensBefore: number } }
    expect(r.result.messages.length).toBe(1)
    expect(r.result.messages[0]?.role).toBe('user')
    expect(r.result.messages[0]?.text).toContain('`SHIPPED-MERGE: BF-1`')
    expect(r.result.messages[0]?.text).toContain('Run key abcd1234')
    expect(r.result.messages[0]?.text).toContain(`no run-state file at ${STATE_FILE} yet`)
    expect(r.result.tokensBefore).toBe(72791)
  })

  test('the boundary message points at an existing run-state file', { plugins: [observer] }, async ($, on) => {
    const w = world(on, { [STATE_FILE]: '{"iteration":3}' })
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    const compacted = w.logs.find((l) => l.startsWith('COMPACTED ')) ?? ''
    expect(compacted).toContain(`run state in ${STATE_FILE}`)
  })

  test('a scheduled-trigger wakeup makes the session looping', async ($, on) => {
    const w = world(on)
    await start($)
    await wakeup($, '/auto epic:BF-9')
    await complete($, 't1', 'NO-CANDIDATES')
    expect(rows(w)).toEqual([boundary('t1', 72791, '/auto epic:BF-9', 'NO-CANDIDATES')])
  })

  test('a ScheduleWakeup call arming the next iteration makes the session looping', async ($, on) => {
    const w = world(on)
    await start($)
    await $.prompt.submit({ text: '/auto', command: { name: 'auto', args: '' }, wait: false, origin: { kind: 'sdk' } })
    await $.turn.start({ text: '/auto', turnId: 't1' })
    await step($, w, 't1', answer('arming', 5000, [{ name: 'ScheduleWakeup', input: { delaySeconds: 60, reason: 'next', prompt: '/auto' } }]))
    await $.turn.complete({ answer: 'AUTO-CONTINUE', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' })
    expect(rows(w)).toEqual([boundary('t1', 72791, '/auto', 'AUTO-CONTINUE')])
  })

  test('a configured prefix other than /auto', options({ loop_prefixes: '/sweep, /auto' }), async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop 5m /sweep repo')
    await complete($, 't1', 'SKIPPED-NO-SPEC: BF-2')
    expect(rows(w)).toEqual([boundary('t1', 72791, '/sweep repo', 'SKIPPED-NO-SPEC: BF-2')])
  })

  test('at or above min_context_percent the boundary is compacted', options({ min_context_percent: 7 }), async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    expect(rows(w)).toEqual([boundary('t1', 72791)])
  })

  test('tokensAfter is filled from the next iteration’s first main-loop request, not a subagent’s', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    await wakeup($, '/auto')
    await $.turn.start({ text: '/auto', turnId: 't2' })
    // A synthetic step (no request) measures nothing; a subagent's request is not the iteration's.
    await step($, w, 't2', answer('synthetic', null))
    await step($, w, 't2', answer('sub', 999), 'agent-1')
    expect(rows(w)[0]?.tokensAfter).toBe(null)
    await step($, w, 't2', answer('first', 45813))
    await step($, w, 't2', answer('second', 50000))
    expect(rows(w)).toEqual([{ ...boundary('t1', 72791), tokensAfter: 45813 }])
  })

  test('two boundaries, each with its own tokensAfter', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    await wakeup($, '/auto')
    await $.turn.start({ text: '/auto', turnId: 't2' })
    await step($, w, 't2', answer('work', 45813))
    w.context = { tokens: 60000, window: 1000000, percent: 6 }
    await $.turn.complete({ answer: 'SHIPPED-PR: BF-2', durationMs: 1, isAborted: false, turnId: 't2', reason: 'answer' })
    await wakeup($, '/auto')
    await $.turn.start({ text: '/auto', turnId: 't3' })
    await step($, w, 't3', answer('work', 45900))
    expect(rows(w)).toEqual([{ ...boundary('t1', 72791), tokensAfter: 45813 }, { ...boundary('t2', 60000, '/auto', 'SHIPPED-PR: BF-2'), tokensAfter: 45900 }])
  })
})

describe('passes', () => {
  test('no outcome line: the heartbeat turn keeps its context', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', 'Delegated work still in flight.')
    expect(rows(w)).toEqual([pass('no-outcome', 't1')])
    expect(w.logs.some((l) => l.startsWith('loop-boundary: compacted'))).toBe(false)
  })

  test('no loop: an outcome line outside a loop is logged, never compacted', { plugins: [observer] }, async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/auto')
    await complete($, 't1', OUTCOME)
    expect(rows(w)).toEqual([pass('no-loop', 't1', { outcome: 'SHIPPED-MERGE: BF-1' }, null)])
    expect(w.logs.some((l) => l.startsWith('COMPACTED '))).toBe(false)
  })

  test('no loop and no outcome line: no ledger is written at all', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, 'fix the bug')
    await complete($, 't1', 'Fixed.')
    expect(w.files.has(LEDGER)).toBe(false)
  })

  test('the turn whose ScheduleWakeup ends the loop, and the turns after it', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await $.turn.start({ text: '/loop /auto', turnId: 't1' })
    await step($, w, 't1', answer('stopping', 5000, [{ name: 'ScheduleWakeup', input: { stop: true } }]))
    await $.turn.complete({ answer: 'AUTO-HALTED: nothing left', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' })
    await typed($, 'and now?')
    await complete($, 't2', 'SHIPPED-PR: BF-7')
    expect(rows(w)).toEqual([pass('loop-ended', 't1', { outcome: 'AUTO-HALTED: nothing left' }), pass('no-loop', 't2', { outcome: 'SHIPPED-PR: BF-7' }, null)])
  })

  test('a stop in one turn does not leak into the next', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await $.turn.start({ text: 'x', turnId: 't1' })
    await step($, w, 't1', answer('re-arm', 5000, [{ name: 'ScheduleWakeup', input: { delaySeconds: 60, reason: 'r', prompt: '/auto' } }]))
    await $.turn.complete({ answer: 'still going', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' })
    await wakeup($, '/auto')
    await complete($, 't2', OUTCOME)
    expect(rows(w)).toEqual([pass('no-outcome', 't1'), boundary('t2', 72791)])
  })

  const ended: ['aborted' | 'error', string][] = [
    ['aborted', 'aborted'],
    ['error', 'error'],
  ]
  for (const [reason, want] of ended) {
    test(`an ${reason} turn`, async ($, on) => {
      const w = world(on)
      await start($)
      await typed($, '/loop /auto')
      await complete($, 't1', OUTCOME, { reason })
      expect(rows(w)).toEqual([pass(want, 't1')])
    })
  }

  test('a prefix mismatch', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop 10m /sweep')
    await complete($, 't1', OUTCOME)
    expect(rows(w)).toEqual([pass('prefix', 't1', { outcome: 'SHIPPED-MERGE: BF-1' }, '/sweep')])
  })

  test('below min_context_percent the boundary is logged, not compacted', options({ min_context_percent: 50 }), async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    expect(rows(w)).toEqual([pass('below-floor', 't1', { outcome: 'SHIPPED-MERGE: BF-1', contextPercent: 7 })])
  })

  test('a subagent’s turn in a looping session', { plugins: [observer] }, async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 'ta', OUTCOME, { agentId: 'agent-1' })
    expect(rows(w)).toEqual([pass('subagent', 'ta', { outcome: 'SHIPPED-MERGE: BF-1', agentId: 'agent-1' })])
    expect(w.logs.some((l) => l.startsWith('COMPACTED '))).toBe(false)
  })

  test('a subagent’s ScheduleWakeup does not make the session looping', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/auto')
    await $.turn.start({ text: 'x', turnId: 't1' })
    await step($, w, 't1', answer('sub', 100, [{ name: 'ScheduleWakeup', input: { delaySeconds: 60, reason: 'r', prompt: '/auto' } }]), 'agent-1')
    await $.turn.complete({ answer: OUTCOME, durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' })
    expect(rows(w)).toEqual([pass('no-loop', 't1', { outcome: 'SHIPPED-MERGE: BF-1' }, null)])
  })

  test('a vetoed compaction is a boundary row with accepted false', { plugins: [veto] }, async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    expect(rows(w)).toEqual([{ ...boundary('t1', 72791), accepted: false, skipped: 'vetoed by a guard', nearClear: false }])
  })
})

describe('other compactions', () => {
  test('a typed /compact, the threshold’s and a subagent’s pass through untouched', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await $.session.compact({ trigger: 'manual', instructions: 'keep the plan', messages: [] })
    await $.session.compact({ trigger: 'auto', messages: [] })
    await $.session.compact({ trigger: 'manual', agentId: 'agent-1', messages: [] })
    expect(w.beneath).toEqual([{ trigger: 'manual', instructions: 'keep the plan' }, { trigger: 'auto' }, { trigger: 'manual', agentId: 'agent-1' }])
  })

  test('after a boundary, a later compaction reaches core again', async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    await $.session.compact({ trigger: 'manual', instructions: 'loop-boundary t1', messages: [] })
    expect(w.beneath).toEqual([{ trigger: 'manual', instructions: 'loop-boundary t1' }])
  })
})

describe('settings and the ledger file', () => {
  test('enabled false: no compaction, no ledger', { ...options({ enabled: false }), plugins: [observer] }, async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    expect(w.files.has(LEDGER)).toBe(false)
    expect(w.logs.some((l) => l.startsWith('COMPACTED '))).toBe(false)
  })

  test('ledger false: the boundary is compacted, no file is written', { ...options({ ledger: false }), plugins: [observer] }, async ($, on) => {
    const w = world(on)
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', OUTCOME)
    expect(w.files.size).toBe(0)
    expect(w.logs.some((l) => l.startsWith('COMPACTED '))).toBe(true)
  })

  test('rows written by an earlier run of the session are reloaded and kept', async ($, on) => {
    const earlier = JSON.stringify(boundary('t0', 90000))
    const w = world(on, { [LEDGER]: earlier + '\n' })
    await start($)
    await typed($, '/loop /auto')
    await complete($, 't1', 'heartbeat')
    expect(rows(w)).toEqual([JSON.parse(earlier), pass('no-outcome', 't1')])
  })
})
