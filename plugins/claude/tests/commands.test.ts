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

test('/notesoup cap resolves with the environment the budget uses', async ($, on) => {
  const f = install(on, 'session_only')
  f.env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE = '50'
  f.env.DISABLE_AUTO_COMPACT = '1'
  f.limits = { resolved: true, native: 41808, hard: 31808, warning: 15424 }
  await startSession($)
  const set = await cmd($, 'notesoup', 'cap 100k')
  expect(set.text).toContain('warning at 15424 tokens, reset at 31808')
  const args = f.requests.filter((r) => r.op === 'limits').at(-1)?.args
  expect(args?.env).toEqual({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50', DISABLE_AUTO_COMPACT: '1' })
  expect(args?.cap).toBe('100k')
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

test('NOTESOUP_DISABLED: the static commands say so instead of prompting the model', async ($, on) => {
  const f = install(on)
  f.env.NOTESOUP_DISABLED = '1'
  await startSession($)
  for (const name of ['notesoup:empty', 'notesoup:fresh-window', 'notesoup:continue']) {
    const r = await cmd($, name)
    expect(r.text).toContain(`/${name}: notesoup is disabled`)
    expect(r.isTextDisplayOnly).toBe(true)
  }
  // Nothing reached the engine beneath: no empty prompt went to the model.
  expect(f.commands).toEqual([])
  expect(f.requests).toEqual([])
})

test('DISABLE_COMPACT: the flow is told, explicit resets are refused', async ($, on) => {
  const f = install(on, 'compact_disabled')
  f.env.DISABLE_COMPACT = '1'
  await startSession($)
  const r = await $.tool.run({ tool: 'mcp__notesoup__empty_brain', tool_use_id: 't' } as never)
  expect(r.deny).toContain('DISABLE_COMPACT')
  const refused = (await cmd($, 'notesoup:empty')).text ?? ''
  expect(refused).toContain('/notesoup:empty cannot run')
  // Every command the texts name is one Claude Code has.
  expect(refused).toContain('/notesoup:empty or /notesoup:fresh-window')
  expect(refused.replace(/\/notesoup:(empty|fresh-window)/g, '')).not.toMatch(/\/(empty|fresh-window)/)
  expect(f.errors).toEqual([])
  expect(f.steps).toEqual([])
})

async function historyList($: Engine, args: Record<string, unknown> = {}) {
  return $.tool.run({ tool: 'mcp__notesoup__history_list', tool_use_id: 'toolu_h', ...args } as never)
}

test('history of the current session needs the transcript Claude Code reported, and the live head', async ($, on) => {
  const f = install(on, 'session_only')
  await startSession($)
  // No transcript_path: refused, nothing guessed; the boot says so.
  for (const session of [undefined, '', 'current']) {
    const r = await historyList($, session === undefined ? {} : { session })
    expect(r.deny).toContain('did not report this session\'s transcript')
  }
  expect(f.requests.filter((r) => r.op === 'history.list')).toEqual([])
  await $.prompt.context({ blocks: [] } as never)
  const boot = f.requests.find((r) => r.op === 'boot')
  expect(boot?.args?.notices).toEqual([expect.stringContaining('History of this session is unavailable')])
  // Another session, named: the helper answers.
  expect((await historyList($, { session: 'claude:latest' })).deny).toBeUndefined()
  // Bound, but no row kept yet: still refused.
  await $.classic.SessionStart({ source: 'startup', session_id: 's1', transcript_path: '/home/u/.claude/projects/p/s1.jsonl' } as never)
  expect((await historyList($)).deny).toContain('live head')
  await $.session.append({ message: { type: 'user', content: [{ type: 'text', text: 'hi' }] }, door: 'prompt', uuid: 'h1' } as never)
  expect((await historyList($)).deny).toBeUndefined()
  const sent = f.requests.filter((r) => r.op === 'history.list').at(-1)
  expect(sent?.caller).toMatchObject({ transcript: '/home/u/.claude/projects/p/s1.jsonl', head: 'h1' })
  expect(f.errors).toEqual([])
})
