// The background vault sync at session start (hooks/vaultsync.ts): started
// with notesoup's detaching argv, not awaited, off with NOTESOUP_VAULT_SYNC=off
// or NOTESOUP_DISABLED, and never breaking the session when notesoup is missing.
import { expect, test } from 'claude-code/testing'
import type { Engine } from 'claude-code/testing'
import { install } from './fake'

const SYNC = ['vault', 'sync', '--background', '--quiet', '--wait', '2s']

async function startSession($: Engine) {
  await $.session.start({ cwd: '/proj', surface: null, isInteractive: false } as never)
}

/** The plugin-local notesoup's argv without its path. */
function args(f: { syncs: string[][] }) {
  for (const a of f.syncs) expect(String(a[0]).endsWith('/bin/notesoup')).toBe(true)
  return f.syncs.map((a) => a.slice(1))
}

test('session.start starts the detaching vault sync once', async ($, on) => {
  const f = install(on, 'session_only')
  await startSession($)
  for (let i = 0; i < 20 && f.syncs.length === 0; i++) await Promise.resolve()
  expect(args(f)).toEqual([SYNC])
  expect(f.registered.length).toBe(8)
  expect(f.errors).toEqual([])
})

test('NOTESOUP_VAULT_SYNC=off starts no sync; the session starts as usual', async ($, on) => {
  const f = install(on, 'session_only')
  f.env.NOTESOUP_VAULT_SYNC = 'off'
  await startSession($)
  for (let i = 0; i < 20; i++) await Promise.resolve()
  expect(f.syncs).toEqual([])
  expect(f.registered.length).toBe(8)
  expect(f.errors).toEqual([])
})

test('NOTESOUP_DISABLED starts no sync', async ($, on) => {
  const f = install(on, 'session_only')
  f.env.NOTESOUP_DISABLED = '1'
  await startSession($)
  for (let i = 0; i < 20; i++) await Promise.resolve()
  expect(f.syncs).toEqual([])
})

test('a missing notesoup does not break the session start', async ($, on) => {
  const f = install(on, 'session_only')
  f.failSync = true
  await startSession($)
  for (let i = 0; i < 20 && f.syncs.length === 0; i++) await Promise.resolve()
  expect(args(f)).toEqual([SYNC])
  expect(f.registered.length).toBe(8)
  expect(f.errors).toEqual([])
})
