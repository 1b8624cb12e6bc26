// The pure rules: outcome lines, loop prompts, prefixes, ScheduleWakeup, token counts, options, verdicts and rows.
import { describe, expect, test } from 'claude-code/testing'
import {
  boundaryMessage,
  boundaryRow,
  decide,
  ledgerLine,
  ledgerLines,
  loopPromptOf,
  matchesPrefix,
  outcomeLineOf,
  passRow,
  readOptions,
  requestTokensOf,
  wakeupOf,
  withTokensAfter,
  type TurnFacts,
  type Verdict,
} from '../hooks/boundary'

describe('outcomeLineOf', () => {
  const cases: [string, string, string | null][] = [
    ['plain last line', 'Merged it.\nSHIPPED-MERGE: BF-1', 'SHIPPED-MERGE: BF-1'],
    ['bold bullet', 'Done.\n- **SHIPPED-PR: BF-2 (#41)**', 'SHIPPED-PR: BF-2 (#41)'],
    ['quoted, code', '> `DEFERRED-MERGE: BF-3 waits on CI`', 'DEFERRED-MERGE: BF-3 waits on CI'],
    ['skipped family', 'SKIPPED-NO-SPEC: BF-4', 'SKIPPED-NO-SPEC: BF-4'],
    ['blocked', 'BLOCKED-ON-REVIEW: BF-5', 'BLOCKED-ON-REVIEW: BF-5'],
    ['continue', '## AUTO-CONTINUE', 'AUTO-CONTINUE'],
    ['no candidates', 'NO-CANDIDATES', 'NO-CANDIDATES'],
    ['halted', 'AUTO-HALTED: budget', 'AUTO-HALTED: budget'],
    ['the last of several', 'Earlier: \nSHIPPED-PR: BF-1\nNow:\nSHIPPED-MERGE: BF-1', 'SHIPPED-MERGE: BF-1'],
    ['heartbeat without one', 'Checked the delegated work: still running.', null],
    ['mid-sentence mention is not a line', 'I will report SHIPPED-MERGE when done.', null],
    ['a longer word is not the token', 'SHIPPED-MERGED everything', null],
    ['lower case is not an outcome', 'shipped-merge: bf-1', null],
    ['empty answer', '', null],
  ]
  for (const [name, answer, want] of cases) {
    test(name, () => {
      expect(outcomeLineOf(answer)).toBe(want)
    })
  }
  test('an outcome line is cut to 200 characters', () => {
    expect(outcomeLineOf('SHIPPED-PR: ' + 'x'.repeat(500))?.length).toBe(200)
  })
})

describe('loopPromptOf', () => {
  const cases: [string, string, { name: string; args: string } | undefined, string | null][] = [
    ['typed /loop with interval', '/loop 1m /auto', { name: 'loop', args: '1m /auto' }, '/auto'],
    ['typed /loop, dynamic', '/loop /auto epic:BF-1', { name: 'loop', args: '/auto epic:BF-1' }, '/auto epic:BF-1'],
    ['long interval word', '/loop 2 hours /auto', { name: 'loop', args: '2 hours /auto' }, '/auto'],
    ['dispatched text without a parsed command', '/loop 5m /auto', undefined, '/auto'],
    ['another command', '/auto', { name: 'auto', args: '' }, null],
    ['plain text', 'please loop /auto', undefined, null],
    ['/looping is not /loop', '/looping /auto', undefined, null],
    ['bare /loop', '/loop', { name: 'loop', args: '' }, ''],
  ]
  for (const [name, text, command, want] of cases) {
    test(name, () => {
      expect(loopPromptOf(text, command)).toBe(want)
    })
  }
})

describe('matchesPrefix', () => {
  const cases: [string, string, string[], boolean][] = [
    ['exact', '/auto', ['/auto'], true],
    ['with arguments', '/auto epic:BF-1', ['/auto'], true],
    ['newline after', '/auto\nmore', ['/auto'], true],
    ['longer command', '/autopilot', ['/auto'], false],
    ['other prefix in list', '/sweep now', ['/auto', '/sweep'], true],
    ['no prefix', '/sweep', ['/auto'], false],
    ['empty prompt', '', ['/auto'], false],
  ]
  for (const [name, prompt, prefixes, want] of cases) {
    test(name, () => {
      expect(matchesPrefix(prompt, prefixes)).toBe(want)
    })
  }
})

describe('wakeupOf', () => {
  const cases: [string, { name: string; input: unknown }[], { prompt: string | null; stop: boolean }][] = [
    ['arms with a prompt', [{ name: 'ScheduleWakeup', input: { delaySeconds: 60, reason: 'next', prompt: '/auto' } }], { prompt: '/auto', stop: false }],
    ['stop ends the loop', [{ name: 'ScheduleWakeup', input: { stop: true } }], { prompt: null, stop: true }],
    ['noop arms nothing new', [{ name: 'ScheduleWakeup', input: { noop: true, prompt: '/auto' } }], { prompt: null, stop: false }],
    ['other tools', [{ name: 'Bash', input: { command: 'ls' } }], { prompt: null, stop: false }],
    ['input not an object', [{ name: 'ScheduleWakeup', input: 'x' }], { prompt: null, stop: false }],
    ['none', [], { prompt: null, stop: false }],
  ]
  for (const [name, uses, want] of cases) {
    test(name, () => {
      expect(wakeupOf(uses)).toEqual(want)
    })
  }
})

describe('requestTokensOf', () => {
  const cases: [string, unknown, number | null][] = [
    ['sums input and cache', { input_tokens: 100, cache_read_input_tokens: 45000, cache_creation_input_tokens: 713, output_tokens: 9 }, 45813],
    ['input only', { input_tokens: 3000 }, 3000],
    ['no request', null, null],
    ['no numbers', { model: 'x' }, null],
  ]
  for (const [name, usage, want] of cases) {
    test(name, () => {
      expect(requestTokensOf(usage)).toBe(want)
    })
  }
})

describe('readOptions', () => {
  test('manifest defaults', () => {
    expect(readOptions({ enabled: true, loop_prefixes: '/auto', min_context_percent: 0, ledger: true })).toEqual({
      enabled: true,
      prefixes: ['/auto'],
      minContextPercent: 0,
      ledger: true,
    })
  })
  test('comma-separated prefixes, a floor, the kill switch and no ledger', () => {
    expect(readOptions({ enabled: false, loop_prefixes: ' /auto, /sweep ,,', min_context_percent: 150, ledger: false })).toEqual({
      enabled: false,
      prefixes: ['/auto', '/sweep'],
      minContextPercent: 100,
      ledger: false,
    })
  })
  test('nothing set falls back to /auto, on, no floor', () => {
    expect(readOptions({})).toEqual({ enabled: true, prefixes: ['/auto'], minContextPercent: 0, ledger: true })
  })
})

describe('decide', () => {
  const opts = readOptions({})
  const base: TurnFacts = { reason: 'answer', isAborted: false, answer: 'ok\nSHIPPED-MERGE: BF-1', loopPrompt: '/auto', loopEnding: false, contextPercent: 7 }
  // `unmeasured` drops contextPercent: the fill is absent before the first response.
  const unmeasured = { contextPercent: -1 }
  const cases: [string, Partial<TurnFacts>, Verdict, Partial<ReturnType<typeof readOptions>>?][] = [
    ['boundary', {}, { kind: 'boundary', outcome: 'SHIPPED-MERGE: BF-1' }],
    ['no outcome line', { answer: 'still working' }, { kind: 'pass', reason: 'no-outcome', outcome: null }],
    ['no loop, outcome line', { loopPrompt: null }, { kind: 'pass', reason: 'no-loop', outcome: 'SHIPPED-MERGE: BF-1' }],
    ['no loop, no outcome: nothing to record', { loopPrompt: null, answer: 'hi' }, { kind: 'ignore' }],
    ['the turn whose ScheduleWakeup ends the loop', { loopEnding: true }, { kind: 'pass', reason: 'loop-ended', outcome: 'SHIPPED-MERGE: BF-1' }],
    ['aborted', { reason: 'aborted', isAborted: true }, { kind: 'pass', reason: 'aborted', outcome: null }],
    ['errored', { reason: 'error' }, { kind: 'pass', reason: 'error', outcome: null }],
    ['refused', { reason: 'refusal' }, { kind: 'pass', reason: 'refusal', outcome: null }],
    ['prefix mismatch', { loopPrompt: '/sweep' }, { kind: 'pass', reason: 'prefix', outcome: 'SHIPPED-MERGE: BF-1' }],
    ['below the floor', {}, { kind: 'pass', reason: 'below-floor', outcome: 'SHIPPED-MERGE: BF-1' }, { minContextPercent: 10 }],
    ['at the floor', { contextPercent: 10 }, { kind: 'boundary', outcome: 'SHIPPED-MERGE: BF-1' }, { minContextPercent: 10 }],
    ['unmeasured fill is below a floor', unmeasured, { kind: 'pass', reason: 'below-floor', outcome: 'SHIPPED-MERGE: BF-1' }, { minContextPercent: 10 }],
    ['subagent in a looping session', { agentId: 'a1' }, { kind: 'pass', reason: 'subagent', outcome: 'SHIPPED-MERGE: BF-1' }],
    ['subagent with no loop', { agentId: 'a1', loopPrompt: null }, { kind: 'ignore' }],
    ['disabled', {}, { kind: 'ignore' }, { enabled: false }],
  ]
  for (const [name, facts, want, o] of cases) {
    test(name, () => {
      const t = { ...base, ...facts } as TurnFacts
      if (facts === unmeasured) delete (t as { contextPercent?: number }).contextPercent
      expect(decide(t, { ...opts, ...o })).toEqual(want)
    })
  }
})

describe('rows', () => {
  test('an accepted boundary row has the seed keys in the seed order', () => {
    const line = ledgerLine('2026-01-02T03:04:05.000Z', 's1', boundaryRow({ accepted: true, outcome: 'SHIPPED-MERGE: BF-1', tokensBefore: 480210, nearClear: true, turnId: 't1', loopPrompt: '/auto' }))
    expect(line).toBe(
      '{"ts":"2026-01-02T03:04:05.000Z","session":"s1","event":"boundary","accepted":true,"outcome":"SHIPPED-MERGE: BF-1","tokensBefore":480210,"tokensAfter":null,"path":"turn-complete","nearClear":true,"turnId":"t1","loopPrompt":"/auto"}',
    )
    expect(withTokensAfter(line, 112340)).toBe(line.replace('"tokensAfter":null', '"tokensAfter":112340'))
  })
  test('a pass row has the seed keys in the seed order', () => {
    expect(ledgerLine('T', 's1', passRow({ reason: 'no-outcome', turnId: 't2', loopPrompt: '/auto' }))).toBe(
      '{"ts":"T","session":"s1","event":"pass","reason":"no-outcome","turnId":"t2","loopPrompt":"/auto"}',
    )
  })
  test('a floor pass carries the fill, a subagent pass its agent', () => {
    expect(passRow({ reason: 'below-floor', turnId: 't', loopPrompt: '/auto', outcome: 'NO-CANDIDATES', contextPercent: 3 })).toEqual({
      event: 'pass',
      reason: 'below-floor',
      outcome: 'NO-CANDIDATES',
      contextPercent: 3,
      turnId: 't',
      loopPrompt: '/auto',
    })
    expect(passRow({ reason: 'subagent', turnId: 't', loopPrompt: '/auto', agentId: 'a1' })).toEqual({ event: 'pass', reason: 'subagent', agentId: 'a1', turnId: 't', loopPrompt: '/auto' })
  })
  test('a vetoed boundary is not accepted and says why', () => {
    expect(boundaryRow({ accepted: false, skipped: 'no', outcome: 'O', tokensBefore: null, nearClear: false, turnId: 't', loopPrompt: '/auto' })).toEqual({
      event: 'boundary',
      accepted: false,
      skipped: 'no',
      outcome: 'O',
      tokensBefore: null,
      tokensAfter: null,
      path: 'turn-complete',
      nearClear: false,
      turnId: 't',
      loopPrompt: '/auto',
    })
  })
  test('ledger lines read back skip blanks; a broken line is kept as it is', () => {
    expect(ledgerLines('{"a":1}\n\n{"b":2}\n')).toEqual(['{"a":1}', '{"b":2}'])
    expect(withTokensAfter('not json', 5)).toBe('not json')
  })
})

describe('boundaryMessage', () => {
  test('names the outcome line, the run key and the run-state file', () => {
    const text = boundaryMessage({ outcome: 'SHIPPED-PR: BF-2', runKey: 'abcd1234', statePath: '/p/tmp/auto-state-abcd1234.json', stateExists: true })
    expect(text).toContain('`SHIPPED-PR: BF-2`')
    expect(text).toContain('Run key abcd1234')
    expect(text).toContain('run state in /p/tmp/auto-state-abcd1234.json')
  })
  test('says so when the run-state file is not there yet', () => {
    expect(boundaryMessage({ outcome: 'O', runKey: 'k', statePath: '/s.json', stateExists: false })).toContain('no run-state file at /s.json yet')
  })
})
