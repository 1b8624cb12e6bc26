// The text both integrations make of what the harness and the helper hand
// them: message content flattened to its text, the boot block's window id,
// error and token-count wording. Pure logic, copied byte-identical into each
// plugin (see helper-client.ts).

/**
 * The text of message content: a string as it is, or the text of the text
 * blocks of a block list (tool calls, images and the like count as nothing).
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b: unknown) => (typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text' ? String((b as { text?: unknown }).text ?? '') : ''))
    .join('')
}

/** A window's id as the boot block names it: <harness>:<session>:<ordinal>. */
export function windowId(harness: string, session: string, ordinal: number): string {
  return `${harness}:${session}:${ordinal}`
}

/**
 * How every boot block of this session's windows begins, up to the window's
 * ordinal (shared/boot writes <notesoup-boot window="<window id>">).
 */
export function bootOpening(harness: string, session: string): string {
  return `<notesoup-boot window="${harness}:${session}:`
}

/**
 * The ordinal of the window whose boot block text opens with, when it is a
 * boot of this session's; undefined otherwise.
 */
export function bootOrdinal(text: string, harness: string, session: string): number | undefined {
  const opening = bootOpening(harness, session)
  if (!text.startsWith(opening)) return undefined
  const m = /^(\d+)"/.exec(text.slice(opening.length))
  return m ? Number(m[1]) : undefined
}

/**
 * A token count with thousands separators (159,040), as the helper's own
 * texts print them. Written out rather than toLocaleString: Claude Code's
 * hooks engine need not carry locale data.
 */
export function tokenCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** An error's message, without the "Error: " String() puts in front. */
export function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
