// The hooks module's in-memory state for the loaded session. The reset
// flow's own state (request, commit attempt, cutoff, window ordinal) is
// persisted by the helper (shared/reset); this holds only what the engine
// tells the module and the helper cannot see: identity bindings, the live
// head, the runtime cap, the boot a compaction retained.
import { bootOrdinal, contentText } from './common/format'
import type { Limits } from './common/helper-client'
import { StepTracker } from './common/step-tracker'

/** A compaction attempt waiting for its commit evidence. */
export type PendingCommit = { marker: string; boot: string; window: number; boundarySeen: boolean }

/** Who will start the next turn, as far as the module submitted it. */
export type Origin = 'natural' | 'continuation' | 'closeout'

/** Everything the module remembers; reset by `fresh()` at session start and end. */
export type ModState = {
  /** The session is interactive (a REPL): a continuation is queued after the commit, not before. */
  interactive: boolean
  /** NOTESOUP_DISABLED was set at session.start: every hook passes through. */
  disabled: boolean
  /** DISABLE_COMPACT was set: no warnings, no explicit resets. */
  compactDisabled: boolean
  /** The session identity the helper's flow is bound to. */
  session?: string
  /** classic.SessionStart's transcript_path and the session it names. */
  transcript?: string
  transcriptSession?: string
  /** The main loop's last kept row (session.append result uuid). */
  head?: string
  /** The runtime cap as typed (/notesoup cap 100k), "" for none. */
  cap: string
  /** Memoized limits and the inputs they were resolved from. */
  limits?: Limits
  limitsKey?: string
  limitsLogged: boolean
  /** The budget warning waiting for delivery in the current window. */
  warningDue?: string
  /** The boot a compaction answer retained, so prompt.context does not repeat it. */
  retained?: { window: number; text: string }
  pending?: PendingCommit
  /** The origin of the prompt the module submitted and whose turn has not started. */
  submitted?: Origin
  /** A confirmed commit permits the one queued continuation. */
  continuationReady: boolean
  /**
   * What reset.event answers said of step events (plugins/common's rule):
   * while a turn runs with no cutoff armed a step can change nothing and is
   * left out, one helper process less before every model request.
   */
  steps: StepTracker
  /** True while a main turn runs. */
  turnRunning: boolean
  /** Natural input arrived while a turn ran and is not yet delivered. */
  inputInTurn: boolean
}

/** A fresh state. */
export function fresh(): ModState {
  return { interactive: false, disabled: false, compactDisabled: false, cap: '', limitsLogged: false, steps: new StepTracker(), continuationReady: false, turnRunning: false, inputInTurn: false }
}

/**
 * The instructions of our compaction command: the marker first, so the
 * session.compact hook admits only its own attempt, then a line a person
 * reading the transcript understands.
 */
export function compactArgs(marker: string): string {
  return `${marker} notesoup: reset this window to the notes boot (no summary)`
}

/** The prompt command (commands/continue.md) that sends the one continuation after a committed reset. */
export const CONTINUE_COMMAND = 'notesoup:continue'

/** The synthetic answer that ends the requesting turn without a model request. */
export const CUTOFF_TEXT = 'notesoup: the context window is being reset now.'

/** Maps a turn's completion reason to the reset flow's event. */
export function completionEvent(reason: string): 'turn_completed' | 'turn_aborted' | 'turn_failed' | 'turn_refused' {
  switch (reason) {
    case 'answer':
      return 'turn_completed'
    case 'aborted':
      return 'turn_aborted'
    case 'refusal':
      return 'turn_refused'
    default:
      return 'turn_failed'
  }
}

/**
 * Reports whether a transcript tail shows a committed reset: its last
 * compact boundary is followed by boot, unchanged, as the first user row.
 * A partial first or last line (a tail cut, a write in progress) is skipped.
 */
export function transcriptCommitted(tail: string, boot: string): boolean {
  return firstUserAfterBoundary(tail) === boot
}

/**
 * The ordinal of the boot the transcript tail's current window opens with,
 * when it is a retained boot of this session (claude:<session>:<ordinal>):
 * a resumed or reloaded session already carries it, so prompt.context must
 * not add another. Undefined when the window opens otherwise.
 */
export function retainedBootOrdinal(tail: string, session: string): number | undefined {
  const text = firstUserAfterBoundary(tail)
  return text === undefined ? undefined : bootOrdinal(text, 'claude', session)
}

/** The text of the first user row after the last compact boundary, if any. */
function firstUserAfterBoundary(tail: string): string | undefined {
  const rows: { type?: string; subtype?: string; message?: { content?: unknown } }[] = []
  for (const line of tail.split('\n')) {
    try {
      rows.push(JSON.parse(line))
    } catch {
      // not a whole JSON line
    }
  }
  let i = rows.length - 1
  while (i >= 0 && !(rows[i]?.type === 'system' && rows[i]?.subtype === 'compact_boundary')) i--
  if (i < 0) return undefined
  const user = rows.slice(i + 1).find((r) => r.type === 'user')
  if (!user) return undefined
  return contentText(user.message?.content)
}
