// The step_needed rule, table-driven: each case starts, answers and fails
// reset.event calls in a chosen order and asks at chosen points whether the
// next step must be sent.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { StepTracker } from '../src/step-tracker.ts'

/** One move of a case: a call starts, is answered, fails, or a step is asked about. */
type Move =
  | { start: string; session?: string }
  | { answer: string; result: unknown }
  | { reject: string }
  | { step: boolean; session?: string }

/** A call the test holds open until a move answers or fails it. */
type Held = { settle: (r: unknown) => void; fail: (e: Error) => void; done: Promise<unknown> }

const S = 's1'
const FALSE = { step_needed: false }
const TRUE = { step_needed: true }

const cases: { name: string; moves: Move[] }[] = [
  { name: 'nothing answered yet: steps are sent', moves: [{ step: true }] },
  { name: 'a lone false: steps are left out', moves: [{ start: 'a' }, { answer: 'a', result: FALSE }, { step: false }] },
  { name: 'a lone true: steps are sent', moves: [{ start: 'a' }, { answer: 'a', result: TRUE }, { step: true }] },
  { name: 'an answer without the field: steps are sent', moves: [{ start: 'a' }, { answer: 'a', result: FALSE }, { start: 'b' }, { answer: 'b', result: { actions: [] } }, { step: true }] },
  { name: 'a field that is not a boolean counts as absent', moves: [{ start: 'a' }, { answer: 'a', result: { step_needed: 'false' } }, { step: true }] },
  { name: 'a failure reply after a false: steps are sent', moves: [{ start: 'a' }, { answer: 'a', result: FALSE }, { start: 'b' }, { answer: 'b', result: undefined }, { step: true }] },
  { name: 'a rejected call after a false: steps are sent', moves: [{ start: 'a' }, { answer: 'a', result: FALSE }, { start: 'b' }, { reject: 'b' }, { step: true }] },
  {
    name: 'a call in flight makes it unknown; its own lone false counts once answered',
    moves: [{ start: 'a' }, { answer: 'a', result: FALSE }, { start: 'b' }, { step: true }, { answer: 'b', result: FALSE }, { step: false }],
  },
  {
    // d94a625's case: a subagent's refused empty_brain (false) is applied
    // first, the main one (true: the cutoff is armed) second, and their
    // answers come back in the other order.
    name: 'overlapped: true answered first, then the stale false: steps are sent',
    moves: [{ start: 'sub' }, { start: 'main' }, { answer: 'main', result: TRUE }, { answer: 'sub', result: FALSE }, { step: true }],
  },
  {
    name: 'overlapped: both false, answered in order: steps are sent',
    moves: [{ start: 'a' }, { start: 'b' }, { answer: 'a', result: FALSE }, { answer: 'b', result: FALSE }, { step: true }],
  },
  {
    name: 'overlapped: both false, answered out of order: steps are sent',
    moves: [{ start: 'a' }, { start: 'b' }, { answer: 'b', result: FALSE }, { answer: 'a', result: FALSE }, { step: true }],
  },
  {
    name: 'a call started after another was answered does not overlap it',
    moves: [{ start: 'a' }, { answer: 'a', result: TRUE }, { start: 'b' }, { answer: 'b', result: FALSE }, { step: false }],
  },
  {
    name: 'a false that overlapped only a failed call still overlapped',
    moves: [{ start: 'a' }, { start: 'b' }, { reject: 'a' }, { answer: 'b', result: FALSE }, { step: true }],
  },
  {
    name: 'after overlapping calls, the next lone false counts again',
    moves: [{ start: 'a' }, { start: 'b' }, { answer: 'a', result: FALSE }, { answer: 'b', result: FALSE }, { start: 'c' }, { answer: 'c', result: FALSE }, { step: false }],
  },
  {
    name: 'a false asked for one session says nothing of another',
    moves: [{ start: 'a', session: 's1' }, { answer: 'a', result: FALSE }, { step: true, session: 's2' }, { step: false, session: 's1' }],
  },
  {
    name: 'a harness that knows no session: a false asked without one counts without one',
    moves: [{ start: 'a', session: '' }, { answer: 'a', result: FALSE }, { step: false, session: '' }, { step: true }],
  },
]

for (const c of cases) {
  test(`step_needed: ${c.name}`, async () => {
    const t = new StepTracker()
    const held = new Map<string, Held>()
    const outcomes: Promise<unknown>[] = []
    for (const m of c.moves) {
      if ('start' in m) {
        let settle: (r: unknown) => void = () => {}
        let fail: (e: Error) => void = () => {}
        const answer = new Promise<unknown>((res, rej) => ((settle = res), (fail = rej)))
        // '' in a move stands for "no session" (undefined).
        const session = m.session === '' ? undefined : (m.session ?? S)
        const done = t.track(session, () => answer, (r) => r)
        outcomes.push(done.catch(() => undefined))
        held.set(m.start, { settle, fail, done })
      } else if ('answer' in m || 'reject' in m) {
        const name = 'answer' in m ? m.answer : m.reject
        const h = held.get(name)
        assert.ok(h, `no call ${name} started`)
        if ('answer' in m) h.settle(m.result)
        else h.fail(new Error(`${name} failed`))
        // Let the tracker hear this answer (and only this one) before the next move.
        await h.done.catch(() => undefined)
      } else {
        const session = m.session === '' ? undefined : (m.session ?? S)
        assert.equal(t.stepNeeded(session), m.step, `step for ${String(session)} after ${JSON.stringify(c.moves.slice(0, c.moves.indexOf(m)))}`)
      }
    }
    await Promise.all(outcomes)
  })
}

test('track passes the reply on and rethrows a failure unchanged', async () => {
  const t = new StepTracker()
  const reply = { ok: true, result: FALSE }
  assert.equal(await t.track(S, async () => reply, (r) => r.result), reply)
  assert.equal(t.stepNeeded(S), false, 'answerOf picked the result out of the reply')
  const boom = new Error('boom')
  await assert.rejects(
    t.track(S, async () => {
      throw boom
    }, (r) => r),
    (e: unknown) => e === boom,
  )
  assert.equal(t.stepNeeded(S), true)
  // A call that throws before it returns a promise, or an answerOf that
  // throws, is a failure too, and leaves no call counted in flight: a later
  // lone false still counts.
  await assert.rejects(t.track(S, () => {
    throw boom
  }, (r) => r))
  await assert.rejects(t.track(S, async () => FALSE, () => {
    throw boom
  }))
  assert.equal(t.stepNeeded(S), true)
  await t.track(S, async () => FALSE, (r) => r)
  assert.equal(t.stepNeeded(S), false)
})
