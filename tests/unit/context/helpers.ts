/** Builders for histories and a scripted small model for the context tests. No network. */
import type { ContentBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { ReinError } from '../../../src-main/core/errors.js';
import type { LlmClient, LlmEvent, ModelRequest, ModelResponse } from '../../../src-main/core/llm/client.js';
import type { SessionMessage } from '../../../src-main/core/sessions/types.js';

export const user = (...texts: string[]): SessionMessage => ({
  role: 'user',
  content: texts.map((text) => ({ type: 'text', text })),
});
export const assistant = (text: string): SessionMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

export interface Call {
  id: string;
  name?: string;
  input?: Record<string, unknown>;
}
export const toolCalls = (calls: Call[], text?: string): SessionMessage => ({
  role: 'assistant',
  content: [
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...calls.map((c) => ({
      type: 'tool_use' as const,
      id: c.id,
      name: c.name ?? 'file_read',
      input: c.input ?? { path: `/work/${c.id}.txt` },
    })),
  ],
});

export interface Result {
  id: string;
  text: string;
  isError?: boolean;
  image?: boolean;
}
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
export const toolResults = (results: Result[], ...extra: ContentBlockParam[]): SessionMessage => ({
  role: 'user',
  content: [
    ...results.map((r): ToolResultBlockParam => ({
      type: 'tool_result',
      tool_use_id: r.id,
      content: r.image
        ? [
            { type: 'text', text: r.text },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG + r.id } },
          ]
        : r.text,
      ...(r.isError ? { is_error: true } : {}),
    })),
    ...extra,
  ],
});

/** A long text with a recognisable start and end. */
export const big = (tag: string, size = 5000): string => {
  const head = `BEGIN-${tag} `;
  const tail = ` END-${tag}`;
  return `${head}${'x'.repeat(Math.max(0, size - head.length - tail.length))}${tail}`;
};

/** U0, then `n` iterations of (tool call, result), ids t0..t{n-1}. */
export function toolSession(n: number, size = 2000, first = 'Please fix the build'): SessionMessage[] {
  const out: SessionMessage[] = [user(first)];
  for (let i = 0; i < n; i++) {
    out.push(toolCalls([{ id: `t${i}` }]));
    out.push(toolResults([{ id: `t${i}`, text: big(`t${i}`, size) }]));
  }
  return out;
}

export type Reply = string | Error | ((req: ModelRequest) => string | Error);

export interface FakeSmallModel extends LlmClient {
  requests: ModelRequest[];
  /** Replies not used yet. */
  remaining(): number;
}

/** Each turn takes the next scripted reply (a function sees the request); an Error is thrown. */
export function fakeSmallModel(...replies: Reply[]): FakeSmallModel {
  const queue = [...replies];
  const requests: ModelRequest[] = [];
  return {
    requests,
    remaining: () => queue.length,
    async *turn(req: ModelRequest): AsyncGenerator<LlmEvent, ModelResponse> {
      requests.push(req);
      const next = queue.shift();
      if (next === undefined) throw new ReinError('llm_failed', 'fake small model: no scripted reply left');
      const value = typeof next === 'function' ? next(req) : next;
      if (value instanceof Error) throw value;
      yield { type: 'text_delta', text: value };
      return {
        content: [{ type: 'text', text: value }],
        stopReason: 'end_turn',
        usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheCreationTokens: 0 },
        model: 'fake-small',
      };
    },
  };
}

/** Which chore a small-model request is (by its system prompt). */
export const choreOf = (req: ModelRequest): 'summary' | 'learnings' =>
  req.system[0]!.text.includes('long-term memory') ? 'learnings' : 'summary';

/** A model that answers every chore from functions, for property runs. */
export function choreModel(
  answer: (chore: 'summary' | 'learnings', req: ModelRequest) => string | Error,
): LlmClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async *turn(req: ModelRequest): AsyncGenerator<LlmEvent, ModelResponse> {
      requests.push(req);
      const value = answer(choreOf(req), req);
      if (value instanceof Error) throw value;
      yield { type: 'text_delta', text: value };
      return {
        content: [{ type: 'text', text: value }],
        stopReason: 'end_turn',
        usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheCreationTokens: 0 },
        model: 'fake-small',
      };
    },
  };
}

export const llmFailure = (msg = 'fake small model failed'): ReinError =>
  new ReinError('llm_failed', msg, { status: 500 });

/** A seeded PRNG (mulberry32): property runs are reproducible from their seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
