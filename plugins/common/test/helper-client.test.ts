// The helper client with fake runners: the request it writes, and every way
// an answer can come back (a result, a refusal, no answer at all).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  actionsOf, answerText, ask, CODE_NO_ANSWER, CODE_SPAWN_FAILED, encodeRequest, markerIn, MAX_OUTPUT_BYTES, PROTOCOL_VERSION,
  type Reply, type RunResult,
} from '../src/helper-client.ts'

const WHO = { label: 'bin/notesoup-helper' }

test('encodeRequest: the envelope with v, absent fields left out', () => {
  const cases: { name: string; req: Parameters<typeof encodeRequest>[0]; want: unknown }[] = [
    { name: 'op only', req: { op: 'version' }, want: { v: PROTOCOL_VERSION, op: 'version' } },
    { name: 'caller and args', req: { op: 'notes.read', caller: { harness: 'pi', cwd: '/p' }, args: { name: 'a.md' } }, want: { v: 1, op: 'notes.read', caller: { harness: 'pi', cwd: '/p' }, args: { name: 'a.md' } } },
    { name: 'args undefined', req: { op: 'reset.state', caller: { harness: 'claude', session: 's' }, args: undefined }, want: { v: 1, op: 'reset.state', caller: { harness: 'claude', session: 's' } } },
  ]
  for (const c of cases) {
    const text = encodeRequest(c.req)
    assert.deepEqual(JSON.parse(text), c.want, c.name)
    assert.ok(text.startsWith('{"v":1,'), `${c.name}: v leads`)
  }
})

/** A runner that answers out, recording what it was given. */
function runner(out: RunResult, seen: string[] = []) {
  return async (stdin: string) => {
    seen.push(stdin)
    return out
  }
}

test('ask: answers, refusals and failures to answer', async () => {
  const ok = (stdout: string, extra: Partial<RunResult> = {}): RunResult => ({ exitCode: 0, stdout, stderr: '', ...extra })
  const cases: { name: string; out: RunResult; want: Reply | RegExp; code?: string }[] = [
    { name: 'a result', out: ok('{"v":1,"ok":true,"result":{"text":"hi"}}'), want: { ok: true, result: { text: 'hi' } } },
    { name: 'a result that is null', out: ok('{"v":1,"ok":true,"result":null}'), want: { ok: true, result: null } },
    {
      name: 'a refusal with its field',
      out: ok('{"v":1,"ok":false,"error":{"code":"invalid_name","message":"bad name","field":"args.name"}}'),
      want: { ok: false, error: { code: 'invalid_name', message: 'bad name', field: 'args.name' } },
    },
    { name: 'a refusal without a field', out: ok('{"v":1,"ok":false,"error":{"code":"unknown_op","message":"no"}}'), want: { ok: false, error: { code: 'unknown_op', message: 'no' } } },
    { name: 'a refusal without code or message', out: ok('{"v":1,"ok":false}'), want: { ok: false, error: { code: 'failed', message: 'bin/notesoup-helper refused limits without a message' } } },
    { name: 'ok not literally true', out: ok('{"v":1,"ok":"true","result":1}'), want: { ok: false, error: { code: 'failed', message: 'bin/notesoup-helper refused limits without a message' } } },
    { name: 'no JSON, the last stderr line says why', out: { exitCode: 2, stdout: '', stderr: 'starting\npanic: broken\n' }, want: /^bin\/notesoup-helper \(limits\) exited 2 without a JSON answer: panic: broken$/, code: CODE_NO_ANSWER },
    { name: 'no JSON and no stderr', out: { exitCode: 1, stdout: 'not json', stderr: '' }, want: /^bin\/notesoup-helper \(limits\) exited 1 without a JSON answer$/, code: CODE_NO_ANSWER },
    { name: 'ended by a signal', out: { exitCode: null, stdout: '', stderr: '' }, want: /exited null without a JSON answer/, code: CODE_NO_ANSWER },
    { name: 'a JSON array', out: ok('[1]'), want: /answered something other than a JSON object/, code: CODE_NO_ANSWER },
    { name: 'JSON null', out: ok('null'), want: /answered something other than a JSON object/, code: CODE_NO_ANSWER },
    { name: 'a JSON number', out: ok('5'), want: /answered something other than a JSON object/, code: CODE_NO_ANSWER },
    { name: 'a cut answer, even one that parses', out: ok('{"v":1,"ok":true,"result":1}', { isStdoutTruncated: true }), want: new RegExp(`answered more than ${MAX_OUTPUT_BYTES} bytes`), code: CODE_NO_ANSWER },
  ]
  for (const c of cases) {
    const seen: string[] = []
    const r = await ask(runner(c.out, seen), { op: 'limits', caller: { harness: 'pi' } }, WHO)
    assert.deepEqual(JSON.parse(seen[0] ?? ''), { v: 1, op: 'limits', caller: { harness: 'pi' } }, `${c.name}: the request`)
    if (c.want instanceof RegExp) {
      assert.equal(r.ok, false, c.name)
      if (!r.ok) {
        assert.match(r.error.message, c.want, c.name)
        assert.equal(r.error.code, c.code, c.name)
      }
    } else {
      assert.deepEqual(r, c.want, c.name)
    }
  }
})

test('ask: a helper that cannot run is a failure naming the cause and the fix', async () => {
  const cases: { name: string; err: unknown; hint?: string; want: string }[] = [
    { name: 'an Error, with a hint', err: new Error('ENOENT'), hint: 'build it with make', want: 'bin/notesoup-helper could not run (ENOENT); build it with make' },
    { name: 'a thrown string, no hint', err: 'timed out', want: 'bin/notesoup-helper could not run (timed out)' },
  ]
  for (const c of cases) {
    const r = await ask(async () => {
      throw c.err
    }, { op: 'boot' }, { ...WHO, ...(c.hint ? { hint: c.hint } : {}) })
    assert.deepEqual(r, { ok: false, error: { code: CODE_SPAWN_FAILED, message: c.want } }, c.name)
  }
})

test('actionsOf and answerText read results defensively', () => {
  assert.deepEqual(actionsOf({ actions: [{ kind: 'end_turn' }], step_needed: true }), [{ kind: 'end_turn' }])
  for (const r of [undefined, null, {}, { actions: 'x' }, 5]) assert.deepEqual(actionsOf(r), [], JSON.stringify(r))
  assert.equal(answerText({ text: 'Created a.md\n', data: {} }), 'Created a.md\n')
  assert.equal(answerText({ text: 42 }), '42')
  for (const r of [undefined, null, {}, { text: null }]) assert.equal(answerText(r), '', JSON.stringify(r))
})

test('markerIn finds the reset marker in compaction instructions', () => {
  const cases: { in: string | undefined; want: string }[] = [
    { in: 'notesoup-reset:1:2 notesoup: reset this window', want: 'notesoup-reset:1:2' },
    { in: 'keep notesoup-reset:10:33 please', want: 'notesoup-reset:10:33' },
    { in: 'keep the greeting', want: '' },
    { in: 'notesoup-reset:1:', want: '' },
    { in: undefined, want: '' },
  ]
  for (const c of cases) assert.equal(markerIn(c.in), c.want, String(c.in))
})
