// A fake engine beneath the plugin for `claude plugin test`: it answers
// every $ noun the mod calls, and plays the helper from a fixture that
// shared/reset generated (flow.gen.ts), checking that the mod sends exactly
// the scenario's events, in order, for the right session.
import type { On } from 'claude-code'
import { SCENARIOS, type FixtureStep } from './flow.gen'

/** What the fake saw and how it is set up; tests read and change it. */
export type Fake = {
  session: string
  env: Record<string, string>
  tokens?: number
  messages: unknown[]
  /** Helper requests, in order: op, caller, args. */
  requests: { op: string; caller: Record<string, unknown>; args?: Record<string, unknown> }[]
  /** Commands the mod ran that reached the engine (its own hooks let them through). */
  commands: { command: string; args?: string }[]
  logs: string[]
  /** Mismatches between what the mod sent and the scenario. */
  errors: string[]
  /** Tools the mod registered. */
  registered: string[]
  /** Helper operations that answer with an error. */
  failOps: string[]
  /** Makes the named command fail beneath the mod (a rejected command). */
  failCommand?: string
  /** The scenario's remaining steps. */
  steps: FixtureStep[]
  last?: FixtureStep
  /** The limits the helper answers (default: unresolved). */
  limits: Record<string, unknown>
  /** Background vault syncs the mod started (their argv), vaultsync.ts. */
  syncs: string[][]
  /** Makes starting the vault sync reject (notesoup missing). */
  failSync?: boolean
  /** A request whose answer waits for the test (holdNext). */
  hold?: { op: string; released: Promise<void> }
}

/** Canonical JSON: objects with sorted keys, so field order never matters. */
export function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(v)
}

/** The boot text the fake helper builds: names its inputs, so tests can check them. */
export function fakeBoot(args: Record<string, unknown> | undefined): string {
  return `BOOT ordinal=${String(args?.ordinal)} sticky=${String(args?.sticky ?? '')} handoff=${String(args?.handoff ?? '').slice(0, 20)}`
}

/** The warning text the fake helper answers. */
export const FAKE_WARNING = 'FAKE WARNING: 5,000 tokens left before the automatic reset.'
export const FAKE_CLOSEOUT = 'FAKE CLOSE-OUT: the person asked for this window to be emptied.'

function helperAnswer(f: Fake, req: { op: string; caller: Record<string, unknown>; args?: Record<string, unknown> }): unknown {
  switch (req.op) {
    case 'reset.event': {
      const step = f.steps.shift()
      if (!step) {
        f.errors.push(`unexpected event ${canon(req.args)} (scenario exhausted)`)
        return { actions: [{ kind: 'nothing' }] }
      }
      if (canon(step.event) !== canon(req.args) || step.session !== req.caller.session || !!step.subagent !== !!req.caller.subagent) {
        f.errors.push(`sent ${canon(req.args)} for ${String(req.caller.session)}${req.caller.subagent ? ' (subagent)' : ''}, scenario wants ${canon(step.event)} for ${step.session}${step.subagent ? ' (subagent)' : ''}`)
      }
      f.last = step
      return { actions: step.actions, step_needed: step.step_needed }
    }
    case 'reset.state':
      return { window: f.last?.window ?? 0, warned: f.last?.warned ?? false }
    case 'boot':
      return { text: fakeBoot(req.args) }
    case 'limits':
      return f.limits
    case 'text.warning':
      return { text: FAKE_WARNING }
    case 'text.closeout':
      return { text: FAKE_CLOSEOUT }
    default:
      return { text: `answered ${req.op}`, data: null }
  }
}

/**
 * Holds the answer to the next request for op until the returned function
 * is called: the helper has applied it, the module has not heard back.
 */
export function holdNext(f: Fake, op: string): () => void {
  let release = () => {}
  const released = new Promise<void>((r) => (release = r))
  f.hold = { op, released }
  return release
}

/** Installs the fake beneath the plugin, playing scenario `name` (none: no reset events expected). */
export function install(on: On, name?: string): Fake {
  const steps = name ? SCENARIOS[name] : []
  if (!steps) throw new Error(`no scenario ${String(name)} in flow.gen.ts`)
  const f: Fake = { session: 's1', env: {}, messages: [], requests: [], commands: [], logs: [], errors: [], steps: [...steps], registered: [], failOps: [], syncs: [], limits: { resolved: false, reason: 'fake' } }
  on('session.id', () => ({ value: f.session }))
  on('session.cwd', () => ({ value: '/proj' }))
  on('session.model', () => ({ value: 'claude-opus-5-5' }))
  on('session.usage', () => ({ value: { startedAt: 0, context: f.tokens === undefined ? { window: 1000000 } : { window: 1000000, tokens: f.tokens }, rateLimits: [] } }))
  on('session.messages', () => ({ value: f.messages as never }))
  on('settings.read', () => ({ value: {} }))
  on('env.get', ($, e) => ({ value: f.env[e.name] }))
  on('ui.log', ($, e) => {
    f.logs.push(String((e as { text?: unknown }).text ?? ''))
    return { value: undefined }
  })
  on('tool.register', ($, e) => {
    f.registered.push(e.name)
    return { value: { tool: `mcp__notesoup__${e.name}` } }
  })
  on('command.register', ($, e) => ({ value: { command: e.name } }))
  on('process.run', ($, e) => {
    const argv = (e as { argv: readonly string[] }).argv
    if (argv[1] === 'vault') {
      f.syncs.push([...argv])
      if (f.failSync) throw new Error('fake: bin/notesoup: no such file')
      return { value: { exitCode: 0, stdout: '', stderr: '', isStdoutTruncated: false, isStderrTruncated: false } }
    }
    if (argv.length !== 2 || !String(argv[0]).endsWith('/bin/notesoup') || argv[1] !== 'helper') {
      f.errors.push(`ran ${JSON.stringify(argv)}, not the plugin's helper`)
    }
    const req = JSON.parse(String((e as { init?: { stdin?: string } }).init?.stdin)) as { op: string; caller: Record<string, unknown>; args?: Record<string, unknown> }
    f.requests.push(req)
    const stdout = f.failOps.includes(req.op)
      ? JSON.stringify({ v: 1, ok: false, error: { code: 'failed', message: `fake: ${req.op} failed` } })
      : JSON.stringify({ v: 1, ok: true, result: helperAnswer(f, req) })
    const value = { exitCode: 0, stdout, stderr: '', isStdoutTruncated: false, isStderrTruncated: false }
    // The answer is decided now (the helper applied the event), but a held
    // request is answered only when the test releases it.
    const held = f.hold
    if (held && held.op === req.op) {
      f.hold = undefined
      return held.released.then(() => ({ value }))
    }
    return { value }
  })
  on('command.run', ($, e) => {
    f.commands.push({ command: e.command, ...(e.args ? { args: e.args } : {}) })
    if (f.failCommand === e.command) throw new Error(`fake: ${e.command} rejected`)
    return {}
  })
  // Events beneath the plugin answer with their own results.
  on('session.start', ($, e) => ({ cwd: e.cwd }))
  on('session.end', ($, e) => ({ sessionId: e.sessionId }) as never)
  on('classic.SessionStart', () => ({}) as never)
  // A tool the mod does not serve (Bash, Read, Edit) answers beneath it.
  on('tool.call', ($, e) => (String(e.tool).startsWith('mcp__notesoup__') ? ({ result: 'served beneath' }) : ({ result: `${String(e.tool)} output` })) as never)
  on('turn.start', ($, e) => ({ turnId: e.turnId }))
  on('turn.complete', ($, e) => ({ text: e.answer }))
  on('prompt.submit', ($, e) => ({ text: e.text }))
  on('prompt.context', ($, e) => ({ blocks: e.blocks }))
  on('session.compact', () => ({ messages: [{ role: 'user' as const, text: 'CLAUDE SUMMARY', toolUses: [] }] }) as never)
  on('turn.step', async function* ($, e) {
    yield { kind: 'text' as const, index: 0, text: 'model text' }
    return { turnId: e.turnId, index: e.index, answer: 'model text', toolUses: [], stopReason: 'end_turn' as const, usage: null }
  })
  return f
}
