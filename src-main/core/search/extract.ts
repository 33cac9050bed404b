/**
 * Which parts of a session are worth finding again, as rows of searchable text. Only what a person
 * would remember is kept: what the user asked, what the assistant finally answered, which tools ran on
 * what (`bash: git status`), and the start of each tool's output. What Rein itself put into the
 * conversation — the per-turn block (`<!-- cache_break -->`, `<context>` with the time, working folder
 * and model, the `<memory>` copy), SessionStart hook output (`<hook-context>`), its nudges — and the
 * assistant's narration between tool calls, images and thinking are left out: they would match every
 * session and drown the real hits. A change here changes what the index holds: bump SCHEMA_VERSION
 * (schema.ts), so every index built by the old rules is rebuilt when it is next opened.
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { MessageMeta, SessionFile, SessionMessage } from '../sessions/types.js';
import { hasCjk } from './cjk.js';

export type IndexedRole = 'user' | 'assistant' | 'tool_call' | 'tool_result';

export interface IndexRow {
  /** Position of the message in `session.messages` (several rows may share one message). */
  msgIndex: number;
  role: IndexedRole;
  content: string;
  /**
   * Also indexed for substring search (trigrams): everything except tool output without CJK text.
   * Tool output is most of the text and is still found by its words; trigram-indexing it all would
   * make the index several times larger and slower to build.
   */
  substrings: boolean;
}

/** Tool output beyond this is not indexed: the start says what it was; the rest is mostly noise. */
export const TOOL_OUTPUT_INDEX_CHARS = 2_000;
/** Tool inputs are summarised to one line; a huge `file_write` body is not a command worth finding. */
const TOOL_CALL_INDEX_CHARS = 300;

/**
 * Prefix the harness puts on user messages that arrived mid-run (harness/inbox.ts). Such messages are
 * marked `injected` but were typed by a person, so they are indexed as the user's words. Spelled out
 * here rather than imported so the index does not depend on the harness.
 */
export const INBOX_PREFIX = '[New message from user]';

/**
 * The per-turn block (context/promptAssembly.ts `renderVolatile`): the marker, `<context>…</context>`, and
 * at times `<memory>…</memory>` (whose own `</memory>` is escaped, so the first one closes it). Spelled
 * out here rather than imported so the index does not depend on the context module. It is a text
 * block of its own, but wherever it sits — after a turn's tool results, inside a message merged into
 * one string — it is taken out.
 */
const VOLATILE_BLOCK = /<!-- cache_break -->\s*(?:<context>[\s\S]*?<\/context>)?(?:\s*<memory>[\s\S]*?<\/memory>)?/g;
// Sessions of older Reins: the `<context>` block first in the message, without the marker.
const LEADING_CONTEXT = /^\s*<context>[\s\S]*?<\/context>\s*/;
// SessionStart hooks' output (harness/loop.ts), at the start of a block or line: what a hook printed, not what anyone said.
const HOOK_CONTEXT = /(?:^|\n)\s*<hook-context>[\s\S]*?<\/hook-context>/g;

/** A text block's words without what Rein put around them (see above). */
export function withoutReinText(text: string): string {
  return text.replace(VOLATILE_BLOCK, '').replace(LEADING_CONTEXT, '').replace(HOOK_CONTEXT, '');
}

// Input fields that say what a tool call was about, most telling first.
const TELLING_INPUT_FIELDS = ['command', 'pattern', 'query', 'url', 'path', 'file_path', 'name', 'prompt'] as const;

export function extractRows(session: Pick<SessionFile, 'messages' | 'message_meta'>): IndexRow[] {
  const rows: IndexRow[] = [];
  session.messages.forEach((message, msgIndex) => {
    const meta: MessageMeta | undefined = session.message_meta[msgIndex];
    const push = (role: IndexedRole, content: string) => {
      const text = content.trim();
      if (text) rows.push({ msgIndex, role, content: text, substrings: role !== 'tool_result' || hasCjk(text) });
    };
    if (message.role === 'user') userRows(message, meta, push);
    else assistantRows(message, meta, push);
  });
  return rows;
}

type Push = (role: IndexedRole, content: string) => void;

function blocksOf(message: SessionMessage): ContentBlockParam[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function userRows(message: SessionMessage, meta: MessageMeta | undefined, push: Push): void {
  const texts: string[] = [];
  for (const block of blocksOf(message)) {
    if (block.type === 'text') {
      const text = withoutReinText(block.text);
      if (text.trim()) texts.push(text);
    } else if (block.type === 'tool_result') {
      push('tool_result', cut(toolResultText(block.content), TOOL_OUTPUT_INDEX_CHARS));
    }
  }
  if (texts.length === 0) return;
  const joined = texts.join('\n');
  if (meta?.injected === true) {
    // Injected by Rein: a person's follow-up (inbox) is kept, Rein's own nudges are not.
    if (joined.trimStart().startsWith(INBOX_PREFIX)) push('user', joined.trimStart().slice(INBOX_PREFIX.length));
    return;
  }
  // A follow-up can also be merged into a message of tool results; it is still the user's words.
  push(
    'user',
    texts
      .map((t) => (t.trimStart().startsWith(INBOX_PREFIX) ? t.trimStart().slice(INBOX_PREFIX.length) : t))
      .join('\n'),
  );
}

function assistantRows(message: SessionMessage, meta: MessageMeta | undefined, push: Push): void {
  if (meta?.injected === true) return;
  const blocks = blocksOf(message);
  let lastToolUse = -1;
  blocks.forEach((b, i) => {
    if (b.type === 'tool_use' || b.type === 'server_tool_use') lastToolUse = i;
  });
  const finalText: string[] = [];
  blocks.forEach((b, i) => {
    if (b.type === 'tool_use' || b.type === 'server_tool_use')
      push('tool_call', cut(toolCallLine(b.name, b.input), TOOL_CALL_INDEX_CHARS));
    // Text before a tool call is narration ("Let me check…"); only text after the last call answers.
    else if (b.type === 'text' && i > lastToolUse) finalText.push(b.text);
  });
  if (finalText.length > 0) push('assistant', finalText.join('\n'));
}

/** `bash: git status`, `file_read: /etc/hosts`; other inputs as compact JSON. */
export function toolCallLine(name: string, input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    const telling = TELLING_INPUT_FIELDS.map((k) => record[k]).filter(
      (v): v is string => typeof v === 'string' && v.trim() !== '',
    );
    if (telling.length > 0) return `${name}: ${telling.join(' ')}`;
    const json = safeJson(input);
    return json === '{}' ? name : `${name}: ${json}`;
  }
  return input === undefined || input === null ? name : `${name}: ${safeJson(input)}`;
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((b: unknown) => {
      const block = b as { type?: unknown; text?: unknown };
      return block.type === 'text' && typeof block.text === 'string' ? [block.text] : [];
    })
    .join('\n');
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}

/** Cuts at a code point boundary so no half surrogate pair reaches the index. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return text.slice(0, end);
}
