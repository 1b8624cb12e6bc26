// The shared formatter: content text, window ids and boot openings, token
// counts, error text.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bootOpening, bootOrdinal, contentText, errText, tokenCount, windowId } from '../src/format.ts'

test('contentText: strings as they are, the text blocks of a block list, nothing else', () => {
  const cases: { name: string; in: unknown; want: string }[] = [
    { name: 'a string', in: 'hello', want: 'hello' },
    { name: 'text blocks joined', in: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], want: 'ab' },
    { name: 'other blocks count as nothing', in: [{ type: 'image' }, { type: 'text', text: 'x' }, { type: 'tool_use', text: 'no' }, null, 'loose'], want: 'x' },
    { name: 'a text block without text', in: [{ type: 'text' }], want: '' },
    { name: 'undefined', in: undefined, want: '' },
    { name: 'an object', in: { type: 'text', text: 'x' }, want: '' },
  ]
  for (const c of cases) assert.equal(contentText(c.in), c.want, c.name)
})

test('window ids and boot openings name harness, session and ordinal', () => {
  assert.equal(windowId('pi', 'abc', 3), 'pi:abc:3')
  const boot = `<notesoup-boot window="${windowId('claude', 's1', 2)}">\nnotes…`
  assert.ok(boot.startsWith(bootOpening('claude', 's1')))
  const cases: { name: string; text: string; harness: string; session: string; want: number | undefined }[] = [
    { name: 'this session', text: boot, harness: 'claude', session: 's1', want: 2 },
    { name: 'another session', text: boot, harness: 'claude', session: 's2', want: undefined },
    { name: 'a session whose id the other one starts with', text: boot, harness: 'claude', session: 's', want: undefined },
    { name: 'another harness', text: boot, harness: 'pi', session: 's1', want: undefined },
    { name: 'no ordinal', text: '<notesoup-boot window="claude:s1:">', harness: 'claude', session: 's1', want: undefined },
    { name: 'not a boot', text: 'hello', harness: 'claude', session: 's1', want: undefined },
  ]
  for (const c of cases) assert.equal(bootOrdinal(c.text, c.harness, c.session), c.want, c.name)
})

test('tokenCount groups thousands as en-US does', () => {
  for (const n of [0, 7, 999, 1000, 15414, 159040, 1000000, 123456789, 1234.4, 1234.5, -1234, -999]) {
    assert.equal(tokenCount(n), Math.round(n).toLocaleString('en-US'), String(n))
  }
})

test('errText: the message of an Error, anything else as a string', () => {
  assert.equal(errText(new Error('boom')), 'boom')
  assert.equal(errText('plain'), 'plain')
  assert.equal(errText(42), '42')
})
