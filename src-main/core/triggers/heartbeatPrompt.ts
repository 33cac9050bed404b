/**
 * What a heartbeat beat sends, kept small and cacheable. The run's system prompt is the agent's persona
 * and the heartbeat brief below with the goals of HEARTBEAT.md (RunOverrides.isolated): the same bytes
 * beat after beat while those files are unchanged, so from the second beat on the tools and the whole
 * system prompt are read from the prompt cache. What changes — the time (the loop's context block) and
 * a short excerpt of the agent's latest conversation — is the beat's one user message, at the end.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { UNATTENDED_SOURCES } from '../api/patterns.js';
import { agentLayout } from '../agents/index.js';
import { isSessionId } from '../sessions/id.js';
import { SessionStore } from '../sessions/store.js';
import type { SessionFile } from '../sessions/types.js';

export const HEARTBEAT_OK = 'HEARTBEAT_OK';
/** HEARTBEAT.md beyond this many characters is cut (and the beat says so). */
export const MAX_GOALS_CHARS = 4_000;
/**
 * The conversation excerpt: at most this many characters (≈ 500 tokens), so a beat stays under 5,000
 * input tokens with the agent's whole tool set and ≥ 80% of them come from the cache (bench/heartbeat.ts) …
 */
export const TAIL_MAX_CHARS = 2_000;
/** … from at most this many of the latest messages, each cut to MESSAGE_MAX_CHARS. */
export const TAIL_MAX_MESSAGES = 8;
export const MESSAGE_MAX_CHARS = 600;
/** Sessions looked at (newest first) to find the latest one a person had. */
const LATEST_CANDIDATES = 25;

/** The loop's per-turn context block starts with this marker (core/context/promptAssembly.ts). */
const CONTEXT_BLOCK_MARK = '<!-- cache_break -->';

/** A remark after the token longer than this is a message, not an acknowledgement. */
export const OK_REMARK_MAX_CHARS = 40;

/** Markdown and HTML around the token (emphasis, code, strike-through, a quote or heading mark), whitespace. */
const LEADING = /^(?:[\s*_~`>#]|<\/?(?:b|strong|i|em|code|p|span)>)+/i;
const TOKEN = /^heartbeat_ok(?![a-z0-9]|_[a-z0-9])/i;
/** What may stand between the token and a remark, or end the answer: the same, and punctuation. */
const AROUND = /^(?:[\s*_~`>#.,;:!()[\]\-–—]|<\/?(?:b|strong|i|em|code|p|span)>)+/i;
const TRAILING = /(?:[\s*_~`>#.,;:!()[\]\-–—]|<\/?(?:b|strong|i|em|code|p|span)>)+$/i;

/** A contrast or a condition: whatever comes with it is news ("…, but", "only staging", "if you want"). */
const CONTRAST: ReadonlySet<string> = new Set([
  'but',
  'however',
  'though',
  'although',
  'except',
  'unless',
  'yet',
  'apart',
  'besides',
  'other',
  'only',
  'instead',
  'if',
]);
/** A finding or a request, as a whole word … */
const FINDING_WORDS: ReadonlySet<string> = new Set([
  'down',
  'full',
  'late',
  'slow',
  'stuck',
  'red',
  'must',
  'should',
  'please',
  'asap',
  'want',
  'wants',
  'todo',
  'fyi',
  'note',
  'btw',
  'heads',
  'not',
  'cannot',
]);
/** … or as the beginning of one (failed, errors, expires, needed, warnings). */
const FINDING_STEMS =
  /^(?:fail|error|expir|warn|alert|urgent|critical|attention|action|broke|crash|outage|overdue|miss|need|remind|issue|problem|incident|risk)/;
/** A finding right after one of these (or one word further) is negated: "no alerts", "nothing needs attention". */
const NEGATIONS: ReadonlySet<string> = new Set(['no', 'nothing', 'zero', 'none']);

/**
 * Is the answer the silent acknowledgement? The rule, stricter than OpenClaw's (which drops up to 300
 * characters around the token), because a missed alert costs more than a needless notification:
 *
 * 1. The answer starts with HEARTBEAT_OK (any case) once markdown or HTML around it (`**…**`, `` `…` ``,
 *    `_…_`, `> `, `# `, `<b>…</b>`) and whitespace are set aside; HEARTBEAT_OKAY is not it.
 * 2. What follows, past punctuation (`.`, `:`, `-`, `—`, `(`…), is either nothing or a short remark: at
 *    most 40 characters, with no digit (a figure is a finding: "95%", "3 jobs"), no `?` (a question to
 *    the user), no link, no contrast or condition (but, though, except, only, if, still …) and no word
 *    of a finding or a request (failed, error, full, down, expires, need, should, please, not, isn't …)
 *    unless "no"/"nothing" stands just before it ("no alerts", "nothing needs attention", "no action
 *    needed").
 *
 * Anything else — the token in the middle or at the end, a longer remark, "HEARTBEAT_OK but the disk is
 * 95% full" — is an alert.
 */
export function isHeartbeatOk(text: string): boolean {
  const start = text.replace(LEADING, '');
  const token = TOKEN.exec(start);
  if (!token) return false;
  const remark = start.slice(token[0].length).replace(AROUND, '').replace(TRAILING, '').replace(/\s+/g, ' ').trim();
  if (remark === '') return true;
  return isQuietRemark(remark);
}

function isQuietRemark(remark: string): boolean {
  if (remark.length > OK_REMARK_MAX_CHARS) return false;
  if (/[0-9?]/.test(remark) || /:\/\/|www\./i.test(remark)) return false;
  const words = remark
    .toLowerCase()
    .replace(/’/g, "'")
    .split(/[^a-z']+/)
    .filter(Boolean);
  return words.every((w, i) => {
    if (CONTRAST.has(w)) return false;
    const finding = FINDING_WORDS.has(w) || FINDING_STEMS.test(w) || w.endsWith("n't");
    return !finding || NEGATIONS.has(words[i - 1] ?? '') || NEGATIONS.has(words[i - 2] ?? '');
  });
}

export interface Goals {
  text: string;
  /** The file was longer than MAX_GOALS_CHARS and was cut. */
  truncated: boolean;
}

/** HEARTBEAT.md, trimmed and capped; undefined when it is missing or empty (the beat then costs nothing). */
export async function readGoals(home: string, agent: string): Promise<Goals | undefined> {
  let text: string;
  try {
    text = await readFile(agentLayout(home, agent).heartbeat, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EISDIR')
      return undefined;
    throw e;
  }
  const trimmed = text.replace(/\r\n?/g, '\n').trim();
  if (trimmed === '') return undefined;
  if (trimmed.length <= MAX_GOALS_CHARS) return { text: trimmed, truncated: false };
  return { text: trimmed.slice(0, MAX_GOALS_CHARS).trimEnd(), truncated: true };
}

/** The stable part: the heartbeat's rules and the goals. Byte-identical while HEARTBEAT.md is unchanged. */
export function heartbeatBrief(goals: Goals): string {
  return [
    '# Heartbeat',
    'This run is a heartbeat: a periodic check-in that starts on its own, with nobody watching. Work through the goals below; the message shows the end of your latest conversation with the user for context.',
    "Use tools only when a goal needs them. A call that needs the user's approval is refused, so do not try one.",
    `If nothing needs the user's attention, reply with exactly ${HEARTBEAT_OK} and nothing else.`,
    `Otherwise reply with a short message for the user (it becomes a notification and is added to their latest conversation): what you found and what they should do. Do not repeat an alert the conversation already shows unless something changed.`,
    '',
    '## Goals (HEARTBEAT.md)',
    goals.text,
    ...(goals.truncated
      ? ['', `(HEARTBEAT.md is longer than ${MAX_GOALS_CHARS} characters; the rest was left out.)`]
      : []),
  ].join('\n');
}

/** The volatile part: the excerpt and the request, the beat's user message. */
export function heartbeatPrompt(latest: SessionFile | undefined): string {
  const excerpt = latest ? conversationTail(latest) : '';
  const head = latest
    ? `<latest-conversation session="${latest.id}" title="${oneLine(latest.title).replace(/"/g, "'")}">\n${excerpt || '(no text yet)'}\n</latest-conversation>`
    : '<latest-conversation>\n(no conversation with the user yet)\n</latest-conversation>';
  return `${head}\n\nHeartbeat: check your goals now. Reply ${HEARTBEAT_OK} if nothing needs attention.`;
}

/**
 * The end of a conversation in plain text: the newest messages first kept, at most TAIL_MAX_MESSAGES
 * of them and TAIL_MAX_CHARS in all, each cut to MESSAGE_MAX_CHARS; tool calls shown by name, tool
 * results and the loop's context blocks left out.
 */
export function conversationTail(session: SessionFile): string {
  const picked: string[] = [];
  let total = 0;
  for (let i = session.messages.length - 1; i >= 0 && picked.length < TAIL_MAX_MESSAGES; i--) {
    const m = session.messages[i]!;
    const body = messageText(m.content);
    if (body === '') continue;
    const who =
      m.role === 'user' ? 'User' : session.message_meta[i]?.source === 'heartbeat' ? 'You (heartbeat alert)' : 'You';
    const line = `${who}: ${cut(body, MESSAGE_MAX_CHARS)}`;
    if (total + line.length > TAIL_MAX_CHARS) {
      // The newest message always gets in, cut to what is left.
      if (picked.length === 0) picked.push(cut(line, TAIL_MAX_CHARS));
      break;
    }
    picked.push(line);
    total += line.length + 1;
  }
  return picked
    .reverse()
    .join('\n')
    .replace(/<\/latest-conversation>/gi, '</latest-conversation_>');
}

function messageText(content: string | readonly ContentBlockParam[]): string {
  if (typeof content === 'string') return oneParagraph(content);
  const parts: string[] = [];
  for (const b of content) {
    if (b.type === 'text') {
      if (b.text.startsWith(CONTEXT_BLOCK_MARK) || b.text.startsWith('<hook-context>')) continue;
      parts.push(oneParagraph(b.text));
    } else if (b.type === 'tool_use') {
      parts.push(`[used ${b.name}]`);
    }
  }
  return parts.filter((p) => p !== '').join(' ');
}

/** Runs of blank lines squashed, so the excerpt spends its characters on words. */
function oneParagraph(s: string): string {
  return s
    .replace(/\r\n?/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const half = Math.floor((max - 3) / 2);
  return `${s.slice(0, half)} … ${s.slice(s.length - (max - 3 - half))}`;
}

/**
 * The agent's latest conversation with a person: the newest session file (by modification time) that
 * did not start from a schedule, heartbeat or watcher. Read without the cache, so a session a finished
 * run handed back for the lane's next message stays there.
 */
export async function latestConversation(sessionsDir: string): Promise<SessionFile | undefined> {
  let names: string[];
  try {
    names = await readdir(sessionsDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const ids = names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -5))
    .filter(isSessionId);
  const stamped = await Promise.all(
    ids.map(async (id) => {
      try {
        return { id, mtime: (await stat(join(sessionsDir, `${id}.json`))).mtimeMs };
      } catch {
        return undefined;
      }
    }),
  );
  const ordered = stamped
    .filter((s): s is { id: string; mtime: number } => s !== undefined)
    .sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? 1 : -1));
  const store = new SessionStore(sessionsDir);
  for (const { id } of ordered.slice(0, LATEST_CANDIDATES)) {
    try {
      const s = await store.load(id);
      if (!UNATTENDED_SOURCES.has(s.source)) return s;
    } catch {
      // Unreadable or gone: the next one.
    }
  }
  return undefined;
}

/**
 * When a person last wrote in this conversation (ms since the epoch): its newest message that neither
 * a heartbeat, schedule or watcher nor Rein itself added; undefined when there is none.
 */
export function lastWordFromPerson(session: SessionFile): number | undefined {
  for (let i = session.messages.length - 1; i >= 0; i--) {
    const meta = session.message_meta[i];
    if (!meta || meta.injected || UNATTENDED_SOURCES.has(meta.source) || session.messages[i]!.role !== 'user') continue;
    const at = Date.parse(meta.timestamp);
    if (Number.isFinite(at)) return at;
  }
  return undefined;
}
