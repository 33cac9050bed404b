/**
 * Makes a stored history safe to send again when a session resumes. Runs can stop anywhere (crash,
 * cancel, timeout), and the API rejects a history with a `tool_use` that has no `tool_result` right
 * after it, a `tool_result` with no `tool_use` right before it, empty messages, two messages of one
 * role in a row, or an assistant message first. This repairs all of those without inventing content:
 * it only drops and merges.
 *
 * Pure: the inputs are not modified. What needs no repair is shared with the input, not copied: blocks,
 * meta entries and whole messages, so a save after a resume sees the same objects it already checked
 * (validatedHistory.ts) instead of a fresh copy of the whole history.
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { ReinError } from '../errors.js';
import type { MessageMeta, SessionMessage } from './types.js';

export interface SanitizedHistory {
  messages: SessionMessage[];
  /** Still index-aligned with `messages`. */
  meta: MessageMeta[];
}

type Role = SessionMessage['role'];
type Content = string | ContentBlockParam[];
interface Entry {
  role: Role;
  content: Content;
  meta: MessageMeta;
  /** The input message, while this entry is still just that message. */
  from?: SessionMessage;
}

/**
 * Result guarantees: starts with a user message; roles alternate; no empty message or blank text
 * block; every `tool_use` id is unique and answered by exactly one `tool_result` in the very next
 * message, and every `tool_result` answers one. A trailing user message may remain (for instance the
 * tool results of an interrupted run): the caller merges the next prompt into it.
 */
export function sanitizeHistory(messages: readonly SessionMessage[], meta: readonly MessageMeta[]): SanitizedHistory {
  if (messages.length !== meta.length) {
    throw new ReinError('invalid_input', `message_meta: has ${meta.length} entries for ${messages.length} messages`, {
      field: 'message_meta',
    });
  }
  let entries: Entry[] = messages.map((m, i) => ({
    role: m.role,
    content: withoutBlankText(m.content),
    meta: meta[i]!,
    from: m,
  }));

  // Each step can expose work for another (dropping an orphaned tool_result can empty a message, which
  // lets two assistant messages meet, …). Every change removes a message or a block, so this ends.
  for (let size = measure(entries); ;) {
    entries = dropEmpty(entries);
    entries = mergeSameRole(entries);
    entries = dropLeadingAssistant(entries);
    entries = stripUnpairedToolBlocks(entries);
    const next = measure(entries);
    if (next === size) break;
    size = next;
  }

  return {
    messages: entries.map((e) => (isUnrepaired(e) ? e.from : ({ role: e.role, content: e.content } as SessionMessage))),
    meta: entries.map((e) => e.meta),
  };
}

/** Same content and nothing but `role` and `content` (the output never carries other keys). */
function isUnrepaired(e: Entry): e is Entry & { from: SessionMessage } {
  return e.from !== undefined && e.from.content === e.content && Object.keys(e.from).length === 2;
}

function measure(entries: readonly Entry[]): number {
  return entries.reduce((n, e) => n + 1 + (typeof e.content === 'string' ? 1 : e.content.length), 0);
}

/** The API refuses text blocks without visible text; they carry nothing anyway. */
function withoutBlankText(content: Content): Content {
  if (typeof content === 'string') return content.trim() === '' ? [] : content;
  return content.some(isBlankText) ? content.filter((b) => !isBlankText(b)) : content;
}

function isBlankText(b: ContentBlockParam): boolean {
  return b.type === 'text' && b.text.trim() === '';
}

function isEmpty(content: Content): boolean {
  return typeof content === 'string' ? content.trim() === '' : content.length === 0;
}

function dropEmpty(entries: readonly Entry[]): Entry[] {
  return entries.filter((e) => !isEmpty(e.content));
}

function dropLeadingAssistant(entries: readonly Entry[]): Entry[] {
  const firstUser = entries.findIndex((e) => e.role === 'user');
  return firstUser === -1 ? [] : entries.slice(firstUser);
}

/**
 * Consecutive messages of one role become one: contents are concatenated as blocks (nothing said is
 * lost). The first message's meta is kept; the result counts as injected only if both parts were.
 */
function mergeSameRole(entries: readonly Entry[]): Entry[] {
  const out: Entry[] = [];
  for (const e of entries) {
    const prev = out[out.length - 1];
    if (prev === undefined || prev.role !== e.role) {
      out.push(e);
      continue;
    }
    let content = [...toBlocks(prev.content), ...toBlocks(e.content)];
    // The API wants a user message's tool results before anything else in it.
    if (e.role === 'user') {
      content = [
        ...content.filter((b) => b.type === 'tool_result'),
        ...content.filter((b) => b.type !== 'tool_result'),
      ];
    }
    const meta: MessageMeta = { ...prev.meta };
    if (prev.meta.injected === true && e.meta.injected === true) meta.injected = true;
    else delete meta.injected;
    out[out.length - 1] = { role: e.role, content, meta };
  }
  return out;
}

function toBlocks(content: Content): ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * Keeps a `tool_use` only if its id was not used before and the next message is a user message with a
 * `tool_result` for it; keeps a `tool_result` only if it answers a kept `tool_use` of the message just
 * before and is the first answer to it. Tool blocks in the wrong role's message are dropped too.
 */
function stripUnpairedToolBlocks(entries: readonly Entry[]): Entry[] {
  const usedIds = new Set<string>();
  let keptUsesOfPrevious = new Set<string>();
  return entries.map((e, i) => {
    const keptUses = new Set<string>();
    if (typeof e.content === 'string') {
      keptUsesOfPrevious = keptUses;
      return e;
    }
    const next = entries[i + 1];
    const answeredByNext = next?.role === 'user' ? toolResultIds(next.content) : new Set<string>();
    const answeredHere = new Set<string>();
    const content = e.content.filter((b) => {
      if (b.type === 'tool_use') {
        if (e.role !== 'assistant' || usedIds.has(b.id) || !answeredByNext.has(b.id)) return false;
        usedIds.add(b.id);
        keptUses.add(b.id);
        return true;
      }
      if (b.type === 'tool_result') {
        if (e.role !== 'user' || !keptUsesOfPrevious.has(b.tool_use_id) || answeredHere.has(b.tool_use_id))
          return false;
        answeredHere.add(b.tool_use_id);
        return true;
      }
      return true;
    });
    keptUsesOfPrevious = keptUses;
    return content.length === e.content.length ? e : { ...e, content };
  });
}

function toolResultIds(content: Content): Set<string> {
  const ids = new Set<string>();
  if (typeof content !== 'string') for (const b of content) if (b.type === 'tool_result') ids.add(b.tool_use_id);
  return ids;
}
