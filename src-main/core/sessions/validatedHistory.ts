/**
 * Checks a session before it is saved at a cost that follows what changed since the last save, not
 * the length of the conversation. The loop saves after every step, and all but the newest message or
 * two are the very objects the previous save already checked.
 *
 * The small envelope (every field but the history) goes through the SessionFile schema on every save.
 * A message or meta entry goes through its item schema (the same schema object SessionFile uses) only
 * when it is new or changed; once it passed, it is remembered, keyed by the object, together with what
 * it looked like then. It counts as unchanged while
 *  - message: `role` and the `content` reference are the same and its own keys are still exactly
 *    `role`, `content`; for array content also the same length, the same block object at each index,
 *    each block's `type` the same value and still its first key. The block schema reads nothing but
 *    `type` (types.ts keeps every other block field as found), so editing another block field in place
 *    cannot make a message invalid; it is written as it stands, as before.
 *  - meta entry: `source`, `timestamp` and `injected` are the same values and still its first keys.
 * These are identity and string comparisons: no copies, no allocation. Each save check also stamps the
 * items it passed with its number and their index, so `unchangedSinceCheck` can tell that a history is,
 * item for item, the one a given save wrote (sessionCache.ts hands such a session to the next run).
 *
 * Bytes: the file must read exactly like `JSON.stringify(SessionFile.parse(s))`. That parse drops
 * unknown message keys and puts declared keys first (`role`, `content`; a block's `type`; a meta
 * entry's `source`, `timestamp`, `injected`), passing every other value through by reference. So an
 * item whose own keys are exactly those of its parsed copy, in the same order, serialises to the same
 * text; only such items are remembered and written as they are. A valid item that is not in that form
 * is written from its parsed copy and parsed again at every save. Rein builds its messages in that
 * form, and a loaded session is the parse's own output, so this stays the rare case.
 */
import type { z } from 'zod';
import {
  SESSION_FILE_KEYS,
  SessionFile,
  SessionMessageMetaShape,
  SessionMessageShape,
  type MessageMeta,
  type SessionMessage,
} from './types.js';

type Issue = z.core.$ZodIssue;

/**
 * `check` names this passed check: every item of the history was found unchanged or checked by it, at
 * its index (see `unchangedSinceCheck`).
 */
export type SaveCheck = { ok: true; data: SessionFile; check: number } | { ok: false; issues: Issue[] };

/** The last save check that found an item valid, and the index it had in that history. */
interface Stamp {
  check: number;
  index: number;
}

interface SeenMessage extends Stamp {
  role: unknown;
  content: unknown;
  /** Array content only: each block and the `type` it had, interleaved: [block0, type0, block1, type1, …]. */
  blocks: unknown[] | undefined;
}

interface SeenMeta extends Stamp {
  source: unknown;
  timestamp: unknown;
  injected: unknown;
}

// Module-wide on purpose: a message object is valid or not whatever store or session holds it, and
// the entries go away with the objects.
const seenMessages = new WeakMap<object, SeenMessage>();
const seenMeta = new WeakMap<object, SeenMeta>();

let messagesChecked = 0;
let metaChecked = 0;
/** Numbers save checks; 0 is no check (items remembered by `markValidated`). */
let lastCheck = 0;

/**
 * Test hook (not for production code): how many messages and meta entries this process has run
 * through their schemas while checking saves. Tests read it before and after a save.
 */
export function schemaCheckCounts(): { messages: number; meta: number } {
  return { messages: messagesChecked, meta: metaChecked };
}

/**
 * The session as it will be written (`updated_at` stamped), or every problem with it, with paths from
 * the session's root. Same verdict and same output as `SessionFile.safeParse({ ...s, updated_at })`.
 * The result may share objects with `s`: serialise it before `s` changes again.
 */
export function checkSessionForSave(s: SessionFile, updatedAt: string): SaveCheck {
  const messages: unknown = s.messages;
  const meta: unknown = s.message_meta;
  // Arrays are swapped for empty ones here and their items checked below; anything else stays, so the
  // schema reports it exactly as before.
  const envelope = SessionFile.safeParse({
    ...s,
    updated_at: updatedAt,
    messages: Array.isArray(messages) ? [] : messages,
    message_meta: Array.isArray(meta) ? [] : meta,
  });
  const issues: Issue[] = envelope.success ? [] : [...envelope.error.issues];
  const check = ++lastCheck;
  const outMessages = Array.isArray(messages)
    ? checkItems(messages, 'messages', checkMessage, check, issues)
    : undefined;
  const outMeta = Array.isArray(meta) ? checkItems(meta, 'message_meta', checkMeta, check, issues) : undefined;
  // SessionFile's own refinement, which (like every zod refinement) speaks only when nothing else failed.
  if (issues.length === 0 && outMessages && outMeta && outMeta.length !== outMessages.length) {
    issues.push({
      code: 'custom',
      path: ['message_meta'],
      message: 'must have one entry per message',
      input: s,
    } as Issue);
  }
  if (!envelope.success || issues.length > 0) {
    // In the order one whole-file parse reports them: by top-level field.
    issues.sort((a, b) => rankOf(a) - rankOf(b));
    return { ok: false, issues };
  }
  const data = envelope.data;
  data.messages = outMessages as SessionMessage[];
  data.message_meta = outMeta as MessageMeta[];
  return { ok: true, data, check };
}

/**
 * Whether every message and meta entry of `s` is, at its index, an item that save check `check` found
 * valid and written as it is, unchanged since (by the comparisons above). With the arrays of `s` being
 * the very arrays that check saw, at the same lengths, the history of `s` is the history it wrote. An
 * item found by any other check, at another index, or changed since, fails. Identity comparisons only.
 */
export function unchangedSinceCheck(s: SessionFile, check: number): boolean {
  if (check === 0) return false;
  const { messages, message_meta: meta } = s;
  for (let i = 0; i < messages.length; i++) {
    const seen = unchangedMessage(messages[i]);
    if (!seen || seen.check !== check || seen.index !== i) return false;
  }
  for (let i = 0; i < meta.length; i++) {
    const seen = unchangedMeta(meta[i]);
    if (!seen || seen.check !== check || seen.index !== i) return false;
  }
  return true;
}

/**
 * Remembers every message and meta entry of `s` as checked. Only for a session that just came out of
 * `SessionFile`'s parse (or from JSON text a save wrote from a checked session): its items are valid
 * and already in their parsed form.
 */
export function markValidated(s: SessionFile): void {
  for (const m of s.messages) rememberMessage(m);
  for (const e of s.message_meta) rememberMeta(e);
}

/**
 * What to write for one item: itself (its remembered record, now stamped with the check), its parsed
 * copy, or why it is invalid.
 */
type ItemVerdict = Stamp | { value: unknown } | { issues: readonly Issue[] };

function checkItems(
  items: readonly unknown[],
  key: string,
  checkItem: (item: unknown) => ItemVerdict,
  check: number,
  issues: Issue[],
): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const verdict = checkItem(items[i]);
    if ('check' in verdict) {
      verdict.check = check;
      verdict.index = i;
      continue;
    }
    if ('issues' in verdict) {
      for (const issue of verdict.issues) issues.push({ ...issue, path: [key, i, ...issue.path] } as Issue);
      continue;
    }
    (out ??= items.slice())[i] = verdict.value;
  }
  return out ?? (items as unknown[]);
}

function checkMessage(m: unknown): ItemVerdict {
  const seen = unchangedMessage(m);
  if (seen) return seen;
  messagesChecked++;
  const parsed = SessionMessageShape.safeParse(m);
  if (!parsed.success) return { issues: parsed.error.issues };
  if (!sameMessageKeys(m as Record<string, unknown>, parsed.data)) return { value: parsed.data };
  return rememberMessage(m as SessionMessage);
}

function checkMeta(e: unknown): ItemVerdict {
  const seen = unchangedMeta(e);
  if (seen) return seen;
  metaChecked++;
  const parsed = SessionMessageMetaShape.safeParse(e);
  if (!parsed.success) return { issues: parsed.error.issues };
  if (!sameKeys(e as object, parsed.data)) return { value: parsed.data };
  return rememberMeta(e as MessageMeta);
}

function rememberMessage(m: SessionMessage): SeenMessage {
  let blocks: unknown[] | undefined;
  if (Array.isArray(m.content)) {
    blocks = new Array<unknown>(m.content.length * 2);
    m.content.forEach((b, j) => {
      blocks![2 * j] = b;
      blocks![2 * j + 1] = b.type;
    });
  }
  const seen: SeenMessage = { role: m.role, content: m.content, blocks, check: 0, index: -1 };
  seenMessages.set(m, seen);
  return seen;
}

function rememberMeta(e: MessageMeta): SeenMeta {
  const seen: SeenMeta = { source: e.source, timestamp: e.timestamp, injected: e.injected, check: 0, index: -1 };
  seenMeta.set(e, seen);
  return seen;
}

/** The record of `m`, if it has one and `m` is unchanged since. */
function unchangedMessage(m: unknown): SeenMessage | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const seen = seenMessages.get(m);
  if (!seen) return undefined;
  const { role, content } = m as { role?: unknown; content?: unknown };
  if (role !== seen.role || content !== seen.content || !hasOnlyRoleAndContent(m)) return undefined;
  if (!seen.blocks) return seen;
  const blocks = content as readonly unknown[];
  if (blocks.length * 2 !== seen.blocks.length) return undefined;
  for (let j = 0; j < blocks.length; j++) {
    const b = blocks[j] as { type?: unknown };
    if (b !== seen.blocks[2 * j] || b.type !== seen.blocks[2 * j + 1] || firstKey(b) !== 'type') return undefined;
  }
  return seen;
}

function unchangedMeta(e: unknown): SeenMeta | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const seen = seenMeta.get(e);
  if (!seen) return undefined;
  const { source, timestamp, injected } = e as { source?: unknown; timestamp?: unknown; injected?: unknown };
  const same =
    source === seen.source && timestamp === seen.timestamp && injected === seen.injected && metaKeysInParsedOrder(e);
  return same ? seen : undefined;
}

function hasOnlyRoleAndContent(m: object): boolean {
  let n = 0;
  for (const k in m) {
    if (k !== (n === 0 ? 'role' : n === 1 ? 'content' : undefined)) return false;
    n++;
  }
  return n === 2;
}

/** `source`, `timestamp` first and `injected`, if there, right after them: where the parse puts them. */
function metaKeysInParsedOrder(e: object): boolean {
  let n = 0;
  for (const k in e) {
    if (n === 0 ? k !== 'source' : n === 1 ? k !== 'timestamp' : k === 'injected' && n !== 2) return false;
    n++;
  }
  return n >= 2;
}

function firstKey(o: object): string | undefined {
  for (const k in o) return k;
  return undefined;
}

function sameMessageKeys(m: Record<string, unknown>, parsed: { content: unknown }): boolean {
  if (!sameKeys(m, parsed)) return false;
  if (!Array.isArray(parsed.content)) return true;
  const blocks = m.content as readonly object[];
  return parsed.content.every((p: object, j) => sameKeys(blocks[j]!, p));
}

/** Same own keys in the same order: JSON.stringify then writes both alike (the values are shared). */
function sameKeys(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

function rankOf(issue: Issue): number {
  const i = SESSION_FILE_KEYS.indexOf(String(issue.path[0]));
  return i === -1 ? SESSION_FILE_KEYS.length : i;
}
