/**
 * A copy of a session that a later run cannot change, for work that reads it after the run handed it
 * back (the search index, still opening, indexes the session a moment later). Its own top-level
 * object, message list, messages, content lists and blocks, and meta entries — what the loop replaces or
 * appends to when it continues the session — sharing every string and every value inside a block
 * (which nothing changes in place). `structuredClone` would copy the strings too: for a long session,
 * tens of megabytes of tool output held twice.
 */
import type { SessionFile } from './types.js';

export function sessionSnapshot(s: SessionFile): SessionFile {
  return {
    ...s,
    messages: s.messages.map(
      (m) =>
        ({ ...m, content: typeof m.content === 'string' ? m.content : m.content.map((b) => ({ ...b })) }) as typeof m,
    ),
    message_meta: s.message_meta.map((e) => ({ ...e })),
    usage: { ...s.usage },
  };
}
