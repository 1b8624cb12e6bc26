// The budget warning rides any main-agent tool result (tool.call), once per
// window; never a subagent's. With automatic compaction off it says what
// will really happen.
import { expect, test } from 'claude-code/testing'
import type { Engine } from 'claude-code/testing'
import { canon, FAKE_WARNING, install } from './fake'

async function startSession($: Engine) {
  await $.session.start({ cwd: '/proj', surface: null, isInteractive: false } as never)
}

for (const tc of [
  { name: 'automatic resets on: the shared warning', autoReset: true, want: [FAKE_WARNING], not: 'window is full' },
  { name: 'automatic compaction off: no automatic reset is promised', autoReset: false, want: ['Automatic compaction is off', '150 tokens left before the window is full'], not: 'automatic reset' },
]) {
  test(`warning on a Bash result, once, never a subagent's — ${tc.name}`, async ($, on) => {
    const f = install(on, 'warning_delivered')
    f.limits = { resolved: true, native: 1000, hard: 900, warning: 800, window: 1100, auto_reset: tc.autoReset, warnings_enabled: true }
    f.tokens = 850
    await startSession($)
    const sub = await $.tool.call({ tool: 'Bash', command: 'ls', agentId: 'a1' } as never)
    expect(sub.context).toBeUndefined()
    const first = await $.tool.call({ tool: 'Read', file_path: '/proj/a.txt' } as never)
    const text = (first.context ?? []).join('\n')
    for (const w of tc.want) expect(text).toContain(w)
    expect(text).not.toContain(tc.not)
    expect(first.result).toBe('Read output')
    const second = await $.tool.call({ tool: 'Bash', command: 'ls' } as never)
    expect(second.context).toBeUndefined()
    expect(f.errors).toEqual([])
    expect(f.steps.map((s) => canon(s.event))).toEqual([])
  })
}

test('below the warning point a tool result costs no helper process once the points are known', async ($, on) => {
  const f = install(on, 'session_only')
  f.limits = { resolved: true, native: 1000, hard: 900, warning: 800, auto_reset: true, warnings_enabled: true }
  f.tokens = 100
  await startSession($)
  await $.tool.call({ tool: 'Bash', command: 'ls' } as never)
  const before = f.requests.length
  for (let i = 0; i < 5; i++) {
    const r = await $.tool.call({ tool: 'Bash', command: 'ls' } as never)
    expect(r.context).toBeUndefined()
  }
  expect(f.requests.slice(before)).toEqual([])
  expect(f.errors).toEqual([])
})
