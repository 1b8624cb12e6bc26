// /notesoup cap, NOTESOUP_DISABLED and DISABLE_COMPACT at the hooks-module layer.
import { expect, test } from 'claude-code/testing'
import type { Engine } from 'claude-code/testing'
import { install } from './fake'

async function startSession($: Engine) {
  await $.session.start({ cwd: '/proj', surface: null, isInteractive: false } as never)
}

async function cmd($: Engine, command: string, args = '') {
  return $.command.run({ command, args, origin: { kind: 'composer' }, presentation: 'visible' } as never)
}

test('session.start registers the eight tools, generated from the Go definitions', async ($, on) => {
  const f = install(on, 'session_only')
  await startSession($)
  expect([...f.registered].sort()).toEqual(['empty_brain', 'history_list', 'history_read', 'notes_delete', 'notes_edit', 'notes_list', 'notes_read', 'notes_write'])
  expect(f.errors).toEqual([])
})

test('/notesoup cap: shows, sets through the helper\'s limits, and clears', async ($, on) => {
  const f = install(on, 'session_only')
  f.limits = { resolved: true, native: 67000, hard: 58808, warning: 42424 }
  await startSession($)
  expect((await cmd($, 'notesoup')).text).toContain('off')
  const set = await cmd($, 'notesoup', 'cap 100k')
  expect(set.text).toContain('100k')
  expect(set.text).toContain('42424')
  const limits = f.requests.filter((r) => r.op === 'limits')
  expect(limits.at(-1)?.args?.cap).toBe('100k')
  expect((await cmd($, 'notesoup', 'cap')).text).toContain('100k')
  expect((await cmd($, 'notesoup', 'cap off')).text).toContain('off')
  expect((await cmd($, 'notesoup', 'cap')).text).toContain('off')
  expect((await cmd($, 'notesoup', 'bogus')).text).toContain('usage')
  expect(f.errors).toEqual([])
})

test('/notesoup cap too small is refused with the helper\'s reason', async ($, on) => {
  const f = install(on, 'session_only')
  await startSession($)
  f.failOps = ['limits']
  const r = await cmd($, 'notesoup', 'cap 1k')
  expect(r.text).toContain('refused')
  expect((await cmd($, 'notesoup')).text).toContain('off')
})

test('NOTESOUP_DISABLED: no tools, no helper, every event passes through', async ($, on) => {
  const f = install(on)
  f.env.NOTESOUP_DISABLED = '1'
  await startSession($)
  const r = await $.session.compact({ trigger: 'manual', instructions: 'keep it', messages: [] } as never)
  expect((r as { messages?: { text?: string }[] }).messages?.[0]?.text).toBe('CLAUDE SUMMARY')
  expect(f.registered).toEqual([])
  expect(f.requests).toEqual([])
})

test('DISABLE_COMPACT: the flow is told, explicit resets are refused', async ($, on) => {
  const f = install(on, 'compact_disabled')
  f.env.DISABLE_COMPACT = '1'
  await startSession($)
  const r = await $.tool.run({ tool: 'mcp__notesoup__empty_brain', tool_use_id: 't' } as never)
  expect(r.deny).toContain('DISABLE_COMPACT')
  expect((await cmd($, 'notesoup:empty')).text).toContain('cannot run')
  expect(f.errors).toEqual([])
  expect(f.steps).toEqual([])
})
