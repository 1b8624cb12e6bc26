// What survives a session's end (/clear, an in-session resume: session.end
// with no session.start after it), what is due with a window, and a commit
// attempt that never completes.
import { expect, mock, test } from 'claude-code/testing'
import type { Engine, MockClock } from 'claude-code/testing'
import { canon, FAKE_WARNING, install, type Fake } from './fake'

const CUTOFF = 'notesoup: the context window is being reset now.'

async function startSession($: Engine, isInteractive: boolean) {
  await $.session.start({ cwd: '/proj', surface: null, isInteractive } as never)
}

/** /clear as the engine raises it: the session ends, the process goes on as s2. */
async function clear($: Engine, f: Fake) {
  await $.session.end({ reason: 'clear', sessionId: f.session } as never)
  f.session = 's2'
}

async function stepOf($: Engine, turnId: string, index: number) {
  const s = $.turn.step({ turnId, index, model: 'claude-opus-5-5', messageCount: 1 } as never)
  let n = await s.next()
  while (!n.done) n = await s.next()
  return n.value as unknown as { answer?: string; stopReason?: string }
}

async function keep($: Engine, boot: string) {
  await $.session.append({ message: { type: 'system', content: [] }, door: 'compaction', uuid: 'b1' } as never)
  await $.session.append({ message: { type: 'user', content: [{ type: 'text', text: boot }] }, door: 'compaction', uuid: 'u1' } as never)
}

async function compact($: Engine, instructions?: string) {
  return $.session.compact({ trigger: 'manual', ...(instructions ? { instructions } : {}), messages: [] } as never) as Promise<{ messages?: { text?: string }[] }>
}

async function cmd($: Engine, command: string, args = '') {
  return $.command.run({ command, args, origin: { kind: 'composer' }, presentation: 'visible' } as never)
}

async function until(clock: MockClock, cond: () => boolean, what: string) {
  for (let i = 0; i < 50 && !cond(); i++) await clock.settle()
  if (!cond()) throw new Error(`timed out waiting for ${what}`)
}

function settled(f: Fake) {
  expect(f.errors).toEqual([])
  expect(f.steps.map((s) => canon(s.event))).toEqual([])
}

test('/clear in an interactive session: the next reset still continues after its commit', async ($, on) => {
  const f = install(on, 'clear_then_reset')
  const clock = mock.clock(on)
  await startSession($, true)
  await clear($, f)
  await $.turn.start({ text: 'go', turnId: 't1' } as never)
  await stepOf($, 't1', 0)
  await $.tool.run({ tool: 'mcp__notesoup__empty_brain', tool_use_id: 'toolu_r' } as never)
  expect((await stepOf($, 't1', 1)).answer).toBe(CUTOFF)
  await $.turn.complete({ answer: 'done', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' } as never)
  await until(clock, () => f.commands.some((c) => c.command === 'compact'), 'the compaction command')
  // Interactive: the continuation is queued only after the commit. A
  // module that forgot it is interactive queues it now, and it runs
  // before the commit as "no continuation".
  expect(f.commands.map((c) => c.command)).toEqual(['compact'])
  const c = await compact($, f.commands[0]?.args)
  await keep($, c.messages?.[0]?.text ?? '')
  await until(clock, () => f.commands.some((x) => x.command === 'notesoup:continue'), 'the continuation')
  await $.turn.start({ text: 'Continue', turnId: 't2' } as never)
  settled(f)
})

test('/clear with DISABLE_COMPACT: empty_brain is still refused, naming the commands that exist', async ($, on) => {
  const f = install(on, 'clear_compact_disabled')
  f.env.DISABLE_COMPACT = '1'
  await startSession($, false)
  await clear($, f)
  const r = await $.tool.run({ tool: 'mcp__notesoup__empty_brain', tool_use_id: 't' } as never)
  expect(r.deny).toContain('DISABLE_COMPACT')
  expect(r.deny).toContain('/notesoup:empty or /notesoup:fresh-window')
  settled(f)
})

test('a budget reset leaves no warning due in the next window, whose own warning still comes', async ($, on) => {
  const f = install(on, 'budget_reset_then_prompt')
  f.limits = { resolved: true, native: 1000, hard: 900, warning: 800, window: 1100, auto_reset: true, warnings_enabled: true }
  f.tokens = 950
  await startSession($, false)
  await $.turn.start({ text: 'go', turnId: 't1' } as never)
  expect((await stepOf($, 't1', 0)).answer).toBe(CUTOFF)
  await $.turn.complete({ answer: CUTOFF, durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' } as never)
  const queued = f.commands.find((c) => c.command === 'compact')
  const c = await compact($, queued?.args)
  await keep($, c.messages?.[0]?.text ?? '')
  // At the hard point no warning was made: the reset came instead.
  expect(f.requests.filter((r) => r.op === 'text.warning')).toEqual([])
  f.tokens = 100
  await $.prompt.submit({ text: 'next task', wait: false, origin: { kind: 'composer' } } as never)
  // Past this window's warning point the warning comes, on a Bash result.
  f.tokens = 850
  await $.turn.start({ text: 'next task', turnId: 't2' } as never)
  const bash = await $.tool.call({ tool: 'Bash', command: 'ls' } as never)
  expect(bash.context).toEqual([FAKE_WARNING])
  settled(f)
})

test('a compaction whose boot never shows is reported failed, and the request is retried', async ($, on) => {
  const f = install(on, 'commit_never_completes')
  const clock = mock.clock(on)
  await startSession($, true)
  await $.turn.start({ text: 'go', turnId: 't1' } as never)
  await stepOf($, 't1', 0)
  await $.tool.run({ tool: 'mcp__notesoup__empty_brain', tool_use_id: 'toolu_r' } as never)
  await stepOf($, 't1', 1)
  await $.turn.complete({ answer: 'done', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer' } as never)
  await until(clock, () => f.commands.some((c) => c.command === 'compact'), 'the compaction command')
  const c = await compact($, f.commands[0]?.args)
  // A hook above rewrote the boot: no evidence ever comes.
  await keep($, `${c.messages?.[0]?.text ?? ''} (rewritten)`)
  await clock.advance(31_000)
  await until(clock, () => f.requests.some((r) => r.args?.type === 'compaction_failed'), 'compaction_failed')
  await clock.settle()
  await $.turn.start({ text: 'again', turnId: 't2' } as never)
  expect((await stepOf($, 't2', 0)).answer).toBe('model text')
  await $.turn.complete({ answer: 'done', durationMs: 1, isAborted: false, turnId: 't2', reason: 'answer' } as never)
  await until(clock, () => f.commands.filter((x) => x.command === 'compact').length === 2, 'the retry')
  settled(f)
})
