/**
 * A realistic large session for the `sessions` benchmark: a long coding session of many turns, each a
 * prompt, several tool calls whose results are 20–100 KB of source text and command output, and an
 * answer. Written as Rein writes it (2-space JSON, the store's schema), with the compaction checkpoint
 * and context state such a session has once it has outgrown the window many times over.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { messageAnchor } from '../src-main/core/context/checkpoint.js';
import { CACHE_BREAK } from '../src-main/core/context/promptAssembly.js';
import type { CompressedTier } from '../src-main/core/context/houseKeep.js';
import { newSessionId } from '../src-main/core/sessions/id.js';
import type { MessageMeta, SessionFile, SessionMessage } from '../src-main/core/sessions/types.js';

export interface LargeSessionOptions {
  /** The sessions folder (`<REIN_HOME>/sessions` for the default agent). */
  dir: string;
  /** About this many bytes of file (default 50 MB). */
  targetBytes?: number;
  /** A compaction checkpoint near the end, as a session that outgrew its window has (default true). */
  checkpoint?: boolean;
  /** Seed of the pseudo-random text (the same seed makes the same file). */
  seed?: number;
}

export interface LargeSession {
  id: string;
  file: string;
  bytes: number;
  messages: number;
  toolResults: number;
}

/** Writes the session file and says what it holds. */
export function writeLargeSession(opts: LargeSessionOptions): LargeSession {
  const target = opts.targetBytes ?? 50 * 1024 * 1024;
  let rnd = opts.seed ?? 7;
  const rand = () => {
    // xorshift32: fast, deterministic, good enough for varied text.
    rnd ^= rnd << 13;
    rnd ^= rnd >>> 17;
    rnd ^= rnd << 5;
    return (rnd >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const start = Date.parse('2026-11-02T09:00:00Z');
  const id = newSessionId(new Date(start));
  const messages: SessionMessage[] = [];
  const meta: MessageMeta[] = [];
  let clock = start;
  const push = (m: SessionMessage) => {
    clock += 2_000 + Math.floor(rand() * 20_000);
    messages.push(m);
    meta.push({ source: 'cli', timestamp: new Date(clock).toISOString() });
  };
  let bytes = 2_000;
  let toolSeq = 0;
  let toolResults = 0;
  const resultIds: string[] = [];
  for (let turn = 0; bytes < target; turn++) {
    const volatile = `${CACHE_BREAK}\n<context>\nCurrent local time: ${new Date(clock).toISOString()} (UTC)\nWorking folder: /home/dev/project\nModel: claude-sonnet-5-5 (context window 200,000 tokens)\n</context>`;
    push({
      role: 'user',
      content: [
        { type: 'text', text: volatile },
        { type: 'text', text: `${pick(ASKS)} (step ${turn})` },
      ],
    });
    const calls = 3 + Math.floor(rand() * 6);
    for (let c = 0; c < calls && bytes < target; c++) {
      const tid = `toolu_${(++toolSeq).toString(16).padStart(20, '0')}`;
      const path = `src/${pick(DIRS)}/${pick(NAMES)}${turn}_${c}.ts`;
      const isBash = rand() < 0.4;
      const call: ContentBlockParam = isBash
        ? { type: 'tool_use', id: tid, name: 'bash', input: { command: pick(COMMANDS).replace('$F', path) } }
        : { type: 'tool_use', id: tid, name: 'file_read', input: { path } };
      push({
        role: 'assistant',
        content: c === 0 ? [{ type: 'text', text: 'Let me look at the code first.' }, call] : [call],
      });
      const size = 20_000 + Math.floor(rand() * 80_000);
      const body = isBash ? commandOutput(size, rand, pick) : sourceText(size, path, rand, pick);
      push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: tid, content: body }] });
      resultIds.push(tid);
      toolResults++;
      // 2-space JSON escapes newlines and quotes: about 1.04× the text, plus the framing.
      bytes += Math.round(body.length * 1.04) + 400;
    }
    push({
      role: 'assistant',
      content: [{ type: 'text', text: `${pick(ANSWERS)} Turn ${turn} is done: the change is in and the tests pass.` }],
    });
    bytes += 1_200;
  }

  const session: SessionFile = {
    version: 1,
    id,
    agent: 'default',
    title: 'Refactor the storage layer',
    cwd: '/home/dev/project',
    source: 'cli',
    created_at: new Date(start).toISOString(),
    updated_at: new Date(clock).toISOString(),
    messages,
    message_meta: meta,
    usage: {
      input_tokens: 91_000_000,
      output_tokens: 1_200_000,
      cache_read_tokens: 80_000_000,
      cache_creation_tokens: 9_000_000,
      cost_usd: 412.5,
      requests: toolResults + 200,
    },
  };
  if (opts.checkpoint !== false) {
    // Kept: the last few exchanges, well under the 85% mark of a 200,000-token window.
    let kept = messages.length - 1;
    let keptChars = 0;
    for (let i = messages.length - 1; i > 1; i--) {
      keptChars += JSON.stringify(messages[i]).length;
      if (keptChars > 250_000) break;
      if (messages[i]!.role === 'assistant') kept = i;
    }
    session.checkpoint = {
      version: 1,
      summary: Array.from({ length: 40 }, (_, i) => `- ${pick(ANSWERS)} (${i})`).join('\n'),
      firstKeptIndex: kept,
      anchor: messageAnchor(messages[kept]!),
      createdAt: new Date(clock - 60_000).toISOString(),
      tokensBefore: 171_000,
      tokensAfter: 80_000,
      reason: 'proactive',
      summarised: true,
    };
    // What housekeeping decided over the session's life: every result but the newest ten reduced.
    const results: Record<string, CompressedTier> = {};
    resultIds.slice(0, -10).forEach((r, i, all) => (results[r] = i < all.length - 7 ? 'meta' : 'trimmed'));
    session.context = {
      deferred: { loaded: [] },
      housekeeping: { results, strippedImages: [] },
      compaction: { consecutiveFailures: 0, calls: toolResults, backoffUntil: 0 },
      approvals: { grants: [] },
    };
  }
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const file = join(opts.dir, `${id}.json`);
  const text = `${JSON.stringify(session, null, 2)}\n`;
  writeFileSync(file, text, { mode: 0o600 });
  return { id, file, bytes: Buffer.byteLength(text), messages: messages.length, toolResults };
}

const ASKS = [
  'Move the session store onto the new lock helper',
  'Why does the indexer skip files written by the daemon?',
  'Add a test for the retry path',
  'Rename the writer and update its callers',
  'Find where the temp files come from and clean them up',
  'Make the save path report a full disk',
];
const ANSWERS = [
  'The store now takes the lock before it writes.',
  'The indexer reads the pending notes first, then the folder.',
  'I added the test and it fails without the fix.',
  'All callers use the new name; nothing else changed.',
  'Leftover temp files are now found at start and removed.',
];
const DIRS = ['core/sessions', 'core/search', 'core/util', 'core/daemon', 'cli/commands', 'core/harness'];
const NAMES = ['store', 'index', 'writer', 'reader', 'lock', 'cache', 'loop', 'executor'];
const COMMANDS = [
  'npx vitest run tests/unit/$F',
  'git log -p -- $F',
  'rg -n "save|load" src',
  'npx tsc --noEmit -p tsconfig.json',
  'cat $F',
];
const WORDS = [
  'session',
  'store',
  'const',
  'await',
  'return',
  'messages',
  'file',
  'error',
  'lock',
  'write',
  'index',
  'cache',
  'bytes',
  'text',
  'parsed',
  'result',
  'check',
  'value',
];

function sourceText(size: number, path: string, rand: () => number, pick: <T>(xs: readonly T[]) => T): string {
  const lines: string[] = [`// ${path}`];
  let n = 0;
  let len = 0;
  while (len < size) {
    const indent = '  '.repeat(Math.floor(rand() * 4));
    const kind = rand();
    const line =
      kind < 0.15
        ? `${indent}/** ${pick(WORDS)} ${pick(WORDS)} "${pick(WORDS)}" before the ${pick(WORDS)} is ${pick(WORDS)}. */`
        : kind < 0.5
          ? `${indent}const ${pick(WORDS)}${n} = await ${pick(WORDS)}.${pick(WORDS)}(${pick(WORDS)}, { ${pick(WORDS)}: ${Math.floor(rand() * 1000)} });`
          : kind < 0.8
            ? `${indent}if (${pick(WORDS)} !== ${pick(WORDS)}) return ${pick(WORDS)}[${n}];`
            : `${indent}}`;
    const numbered = `${String(++n).padStart(5)}\t${line}`;
    lines.push(numbered);
    len += numbered.length + 1;
  }
  return lines.join('\n');
}

function commandOutput(size: number, rand: () => number, pick: <T>(xs: readonly T[]) => T): string {
  const lines: string[] = [];
  let len = 0;
  while (len < size) {
    const kind = rand();
    const line =
      kind < 0.5
        ? ` ✓ tests/unit/${pick(DIRS)}/${pick(NAMES)}.test.ts > ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} (${Math.floor(rand() * 300)} ms)`
        : kind < 0.8
          ? `src/${pick(DIRS)}/${pick(NAMES)}.ts:${Math.floor(rand() * 400)}:  ${pick(WORDS)}.${pick(WORDS)}(${pick(WORDS)})`
          : `\t${pick(WORDS)} ${pick(WORDS)}\t${Math.floor(rand() * 1e6).toString(16)}`;
    lines.push(line);
    len += line.length + 1;
  }
  return lines.join('\n');
}
