// The bridge to the plugin-local notesoup (`bin/notesoup helper`, the light
// build, which starts fast): the one process this hooks module runs, once
// per call, so its start is paid on every hook. The source gate
// (plugins/claude/gate) refuses any other $.process.run or spawn. The request,
// the answer and every failure are the shared client's (common/helper-client,
// a build-time copy of plugins/common/src); only running the process is here.
import type { EngineInterface } from 'claude-code'
import { ask, HELPER_TIMEOUT_MS, type Caller as HelperCaller, type Reply } from './common/helper-client'

/** Who asks: the helper's caller envelope, as this mod fills it. */
export type Caller = HelperCaller & { harness: 'claude' }

/** One helper answer: a result, or an error saying what went wrong. */
export type HelperReply = Reply

/**
 * notesoup's path inside the plugin: bin/notesoup, placed by `make` with the
 * full build beside it (which it hands a request to when an external harness
 * plugin must be loaded).
 */
export function notesoupBin($: EngineInterface): string {
  return `${$.plugin.root}/bin/notesoup`
}

/** How failures name the helper, and how to get one that runs. */
const WHO = { label: 'notesoup helper', hint: 'build it with `make -C <repo> plugin-claude` so bin/notesoup exists inside the plugin' }

/**
 * Runs one helper operation and returns its parsed answer, never an
 * exception: a hook must degrade, not break the turn. The engine keeps the
 * first 4 MiB of each stream (the shared client's MAX_OUTPUT_BYTES) and
 * rejects a helper still running at the timeout.
 */
export function callHelper($: EngineInterface, op: string, caller: Caller, args?: unknown): Promise<HelperReply> {
  return ask((stdin) => $.process.run([notesoupBin($), 'helper'], { stdin, timeoutMs: HELPER_TIMEOUT_MS }), { op, caller, args }, WHO)
}
