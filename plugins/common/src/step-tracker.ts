// When an integration may leave a `step` reset event out (docs/helper-protocol.md,
// reset.event's step_needed). A step goes before every model request after a
// turn's first, and costs a helper process; the flow answers step_needed
// false exactly when a step could change nothing (a turn running, no cutoff
// armed), so while that holds the integration skips it.
//
// The rule both integrations follow:
//   - a false counts only from a reset.event call no other reset.event call
//     overlapped: answers can come back in another order than the helper
//     applied their events, and a false from an event applied before a
//     sibling's empty_brain would hide the cutoff that one armed;
//   - while any call is in flight nothing is known (it may be arming a
//     cutoff right now);
//   - a failed call, an answer without the field, or a false asked for
//     another session than the one stepping leaves steps to be sent.
//
// Pure logic, copied byte-identical into each plugin (see helper-client.ts).

/** Tracks reset.event calls and the step_needed of their answers. */
export class StepTracker {
  /** reset.event calls started, and those not yet answered. */
  private started = 0
  private inFlight = 0
  /**
   * Set while the last answer is a trusted false, with the session it was
   * asked for (a harness may not know one: undefined). Unset: steps are sent.
   */
  private skipping: { session: string | undefined } | undefined

  /**
   * Runs one reset.event call for session through call and keeps what its
   * answer says of steps; answerOf picks the reset.event result out of what
   * call resolves with (undefined when that is a failure). Whatever call
   * resolves or rejects with is passed on unchanged.
   */
  async track<T>(session: string | undefined, call: () => Promise<T>, answerOf: (reply: T) => unknown): Promise<T> {
    this.skipping = undefined // unknown until this answer says
    const mine = ++this.started
    const overlappedAtStart = ++this.inFlight > 1
    let reply: T
    let result: unknown
    try {
      reply = await call()
      result = answerOf(reply)
    } finally {
      this.inFlight--
    }
    // A rejected call never gets here: skipping stays unset.
    const overlapped = overlappedAtStart || this.started !== mine
    const v = (result as { step_needed?: unknown } | null | undefined)?.step_needed
    this.skipping = v === false && !overlapped ? { session } : undefined
    return reply
  }

  /** Whether a step for session must be sent: anything but a trusted false asked for it. */
  stepNeeded(session: string | undefined): boolean {
    return this.skipping === undefined || this.skipping.session !== session
  }
}
