// The hooks module's in-memory state for the loaded session. The reset
// flow's own state (request, commit attempt, cutoff, window ordinal) is
// persisted by the helper (shared/reset); this holds only what the engine
// tells the module and the helper cannot see: identity bindings, the live
// head, the runtime cap, the boot a compaction retained.
import { bootOrdinal, contentText, tokenCount } from './common/format'
import type { Limits } from './common/helper-client'
import { StepTracker } from './common/step-tracker'

/** A compaction attempt waiting for its commit evidence. */
export type PendingCommit = { marker: string; boot: string; window: number; boundarySeen: boolean }

/** Who will start the next turn, as far as the module submitted it. */
export type Origin = 'natural' | 'continuation' | 'closeout'

/**
 * Everything the module remembers; reset by `fresh()` at session start and
 * end, except what belongs to the process (processState).
 */
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
  /**
   * The warning was delivered in the current window (the flow's warned flag,
   * as this module last learned it): no helper call is spent on it again.
   * Cleared with the window.
   */
  warned: boolean
  /**
   * What the last confirmed commit said of its continuation (the flow's
   * message, e.g. "committed; terminate: no continuation"), so the queued
   * continuation command can say what happened instead of guessing.
   */
  committed?: string
  /** The boot a compaction answer retained, so prompt.context does not repeat it. */
  retained?: { window: number; text: string }
  pending?: PendingCommit
  /** The marker of the last attempt that committed, was vetoed or was reported failed. */
  settled?: string
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
  return { interactive: false, disabled: false, compactDisabled: false, cap: '', limitsLogged: false, warned: false, steps: new StepTracker(), continuationReady: false, turnRunning: false, inputInTurn: false }
}

/**
 * The state a session.end leaves for the next session of the same process.
 * `/clear` and an in-session resume end the session with no session.start
 * after them, so what session.start learned of the process (interactive,
 * NOTESOUP_DISABLED, DISABLE_COMPACT) is kept; so is a transcript binding
 * that already names another session (its classic.SessionStart may come
 * first). Everything that belongs to the ended session starts fresh.
 */
export function processState(old: ModState): ModState {
  const s = fresh()
  s.interactive = old.interactive
  s.disabled = old.disabled
  s.compactDisabled = old.compactDisabled
  if (old.transcript && old.transcriptSession !== old.session) {
    s.transcript = old.transcript
    s.transcriptSession = old.transcriptSession
  }
  return s
}

/**
 * The budget warning when Claude Code's automatic compaction is off
 * (DISABLE_AUTO_COMPACT, autoCompactEnabled: false): notesoup does not
 * reset the window then either, so the shared text's promise of an
 * automatic reset would be false. It says what happens instead, and counts
 * down to the point where the window is full. Same steps as the shared
 * text (shared/reset WarningText); written here because the helper's
 * text.warning has no such variant.
 */
export function manualWarningText(resetTool: string, tokensLeft: number): string {
  return 'notesoup budget warning: this context window is nearly full. ' +
    'Automatic compaction is off in this session, so nothing will empty it for you: once it is full, Claude Code cannot send it to the model until it is reset. ' +
    'Act now, before starting anything new: ' +
    '(1) finish or safely park the step you are on; ' +
    '(2) write down in your notes what the next window must know — the goal, decisions and why, what is done, what is half-done, open questions, and the exact next step with file paths; ' +
    '(3) then reset the window yourself, passing a short last_word for your next self. ' +
    `Reset tool: ${resetTool} — ${tokenCount(Math.max(0, tokensLeft))} tokens left before the window is full.`
}

/** The commands the plugin's commands/*.md define, as Claude Code 2.1.332 names them. */
export const EMPTY_COMMAND = 'notesoup:empty'
export const FRESH_WINDOW_COMMAND = 'notesoup:fresh-window'

/**
 * Names the commands as they exist here: the flow's shared texts
 * (shared/reset) say /empty and /fresh-window, which Claude Code calls
 * /notesoup:empty and /notesoup:fresh-window. A name already qualified is
 * left alone.
 */
export function claudeCommands(text: string): string {
  return text.replace(/(^|[^\w:/-])\/(empty|fresh-window)\b/g, (_m, pre: string, name: string) => `${pre}/notesoup:${name}`)
}

/**
 * What the queued continuation command answers when no continuation runs:
 * what happened to the reset, for the person and for a script reading a
 * -p run's final text. `committed` is the flow's message on the last
 * confirmed commit (undefined: no commit was confirmed).
 */
export function noContinuationText(committed: string | undefined): string {
  if (committed === undefined) return 'notesoup: the context window was not reset (the reset did not commit); no continuation. The request is kept and retried after the next turn.'
  const why = committed.replace(/^committed;?\s*/, '')
  if (/^STOP/.test(why)) return 'notesoup: the context window was reset; it ends here as asked (/notesoup:empty or /notesoup:fresh-window), no continuation.'
  if (/^terminate/.test(why)) return 'notesoup: the context window was reset; it ends here as asked (empty_brain terminate: true), no continuation.'
  if (/natural input/.test(why)) return 'notesoup: the context window was reset; your message continues it, so no continuation is sent.'
  return `notesoup: the context window was reset; no continuation${why ? ` (${why})` : ''}.`
}

/**
 * The notice the boot block carries when this session's history cannot be
 * bound: Claude Code reported no transcript_path, and notesoup does not
 * guess which file is this session's.
 */
export const HISTORY_UNBOUND_NOTICE = 'History of this session is unavailable: Claude Code did not report its transcript (no transcript_path), and notesoup does not guess which file it is. history_list and history_read still read other sessions named by a selector.'

/**
 * Why history of the current session is refused, or undefined when it is
 * bound: a transcript path this session reported and the live head (the
 * session.append row) it is read up to. Without them the helper would
 * pick the file by id and the branch offline, which can be another
 * conversation's.
 */
export function historyUnbound(bound: { transcript: boolean; head: boolean }): string | undefined {
  if (!bound.transcript) return `history of the current session is unavailable: Claude Code did not report this session's transcript (transcript_path), and notesoup does not guess which file it is. Name a session with the session argument (e.g. "claude:latest" or "claude:<id>") to read another one.`
  if (!bound.head) return 'history of the current session is unavailable until this session has kept a row (its live head); try again after the next turn, or name a session with the session argument.'
  return undefined
}

/** True when a history tool's session argument selects the caller's own session. */
export function selectsCurrent(session: unknown): boolean {
  return session === undefined || session === null || session === '' || session === 'current'
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
