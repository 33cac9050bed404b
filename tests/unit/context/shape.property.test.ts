/**
 * Property-style run: seeded random sessions (parallel tool calls, large and small results, errors,
 * images, nudges merged into result messages, new turns) go through housekeeping and compaction the
 * way the loop drives them, with a small model that fails now and then. Whatever happens, every
 * history sent must satisfy the API's rules, the transcript only grows, and no housekeeping decision
 * is ever reversed.
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { locateKept, requestHistory } from '../../../src-main/core/context/checkpoint.js';
import {
  compactHard,
  compactIfNeeded,
  newCompactionState,
  type LastUsage,
} from '../../../src-main/core/context/compaction.js';
import { historyShapeProblems } from '../../../src-main/core/context/historyShape.js';
import { houseKeep, newHouseKeepState, type ResultTier } from '../../../src-main/core/context/houseKeep.js';
import { assemblePrompt } from '../../../src-main/core/context/promptAssembly.js';
import { estimateMessagesTokens } from '../../../src-main/core/context/tokens.js';
import type { SessionMessage } from '../../../src-main/core/sessions/types.js';
import { big, choreModel, llmFailure, PNG, rng } from './helpers.js';

const ORDER: Record<ResultTier, number> = { full: 0, trimmed: 1, clipped: 2, meta: 3 };
const WINDOW = 30_000;
const FIXED = 1_500;

function checkSent(
  sent: SessionMessage[],
  seen: Map<string, ResultTier>,
  recorded: Record<string, Exclude<ResultTier, 'full'>>,
): void {
  expect(historyShapeProblems(sent)).toEqual([]);
  expect(sent[sent.length - 1]!.role).toBe('user');
  for (const m of sent) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      const id = b.tool_use_id;
      const tier = recorded[id] ?? 'full';
      const before = seen.get(id) ?? 'full';
      expect(ORDER[tier], `decision for ${id} went from ${before} back to ${tier}`).toBeGreaterThanOrEqual(
        ORDER[before],
      );
      seen.set(id, tier);
    }
  }
}

describe('housekeeping + compaction always send a valid history', () => {
  let totalCompactions = 0;
  it.each(Array.from({ length: 24 }, (_, i) => i + 1))('seed %i', async (seed) => {
    const { session, compactions } = await simulate(seed, 70);
    totalCompactions += compactions;
    // A resume with lost housekeeping state still yields a valid history.
    expect(historyShapeProblems(houseKeep(requestHistory(session), newHouseKeepState()))).toEqual([]);
  });
  it('exercised compaction along the way', () => {
    expect(totalCompactions).toBeGreaterThan(24);
  });
});

async function simulate(seed: number, iterations: number) {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const session: { messages: SessionMessage[]; checkpoint?: unknown } = { messages: [] };
  const housekeeping = { state: newHouseKeepState(), options: { slack: pick([0, 0, 1, 3]) } };
  const state = newCompactionState();
  const llm = choreModel((chore) =>
    rand() < 0.3 ? llmFailure() : chore === 'learnings' ? 'NONE' : `summary ${Math.floor(rand() * 1000)}: /srv/x.yaml`,
  );
  const deps = { llm, model: 'small', signal: new AbortController().signal };
  const seenTier = new Map<string, ResultTier>();
  let lastUsage: LastUsage | undefined;
  let ids = 0;
  let compactions = 0;
  let transcript = 0;

  const appendUser = (blocks: ContentBlockParam[]) => {
    const last = session.messages[session.messages.length - 1];
    if (last?.role === 'user') {
      last.content = [
        ...(typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content),
        ...blocks,
      ];
    } else session.messages.push({ role: 'user', content: blocks });
  };
  const newTurn = (n: number) => {
    const prompt = assemblePrompt({
      static: 'Static rules.',
      stable: { agent: 'a' },
      volatile: {
        now: new Date(1_700_000_000_000 + n * 60_000),
        timeZone: 'UTC',
        cwd: '/w',
        model: 'm',
        contextWindow: WINDOW,
        memory: rand() < 0.5 ? '- fact' : '',
      },
      history: requestHistory(session),
    });
    appendUser([
      prompt.volatileBlock,
      { type: 'text', text: `task ${n}: ${pick(['fix /srv/app/a.ts', 'call db.internal:5432', 'look at OPS-12'])}` },
    ]);
  };

  newTurn(0);
  for (let i = 0; i < iterations; i++) {
    expect(session.messages.length).toBeGreaterThanOrEqual(transcript);
    transcript = session.messages.length;
    const r = await compactIfNeeded(
      { session, contextWindow: WINDOW, fixedTokens: FIXED, lastUsage, state, housekeeping },
      deps,
    );
    if (r) {
      compactions++;
      session.checkpoint = r.checkpoint;
      // The checkpoint is honoured: the request history really got shorter than the transcript.
      expect(locateKept(session.messages, r.checkpoint)).toBe(r.checkpoint.firstKeptIndex);
      expect(requestHistory(session).length).toBeLessThan(session.messages.length);
    }
    let sent = houseKeep(requestHistory(session), housekeeping.state, housekeeping.options);
    checkSent(sent, seenTier, housekeeping.state.results);
    // The API would refuse (or, now and then, refuses because the estimate was off): compact hard and
    // rebuild, as the loop does on a 400.
    if (FIXED + estimateMessagesTokens(sent) > WINDOW || rand() < 0.05) {
      const hard = await compactHard({ session, contextWindow: WINDOW, fixedTokens: FIXED, state, housekeeping }, deps);
      if (hard.compaction) session.checkpoint = hard.compaction.checkpoint;
      sent = houseKeep(requestHistory(session), housekeeping.state, housekeeping.options);
      checkSent(sent, seenTier, housekeeping.state.results);
      // After the hard compaction the retry fits.
      expect(FIXED + estimateMessagesTokens(sent)).toBeLessThanOrEqual(WINDOW);
    }
    lastUsage = {
      inputTokens: FIXED + estimateMessagesTokens(sent),
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
      messagesSent: sent.length,
    };

    if (rand() < 0.15) {
      session.messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Done for now.' }] });
      newTurn(i + 1);
      continue;
    }
    const n = 1 + Math.floor(rand() * 3);
    const calls = Array.from({ length: n }, () => `c${ids++}`);
    session.messages.push({
      role: 'assistant',
      content: [
        ...(rand() < 0.4 ? [{ type: 'text' as const, text: 'Working on it.' }] : []),
        ...calls.map((id) => ({
          type: 'tool_use' as const,
          id,
          name: pick(['bash', 'file_read', 'grep']),
          input: { arg: `/srv/${id}` },
        })),
      ],
    });
    appendUser(
      calls.map((id) => {
        const text = rand() < 0.5 ? big(id, 100 + Math.floor(rand() * 20_000)) : `ok ${id}`;
        const image = rand() < 0.15;
        return {
          type: 'tool_result' as const,
          tool_use_id: id,
          content: image
            ? [
                { type: 'text' as const, text },
                {
                  type: 'image' as const,
                  source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG + id },
                },
              ]
            : text,
          ...(rand() < 0.1 ? { is_error: true } : {}),
        };
      }),
    );
    if (rand() < 0.1) appendUser([{ type: 'text', text: 'You are repeating yourself.' }]);
  }
  return { session, compactions, state };
}
