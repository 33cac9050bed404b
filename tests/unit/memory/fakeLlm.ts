/** A scripted LlmClient for memory tests: each turn takes the next reply; an Error reply is thrown. No network. */
import type { LlmClient, LlmEvent, ModelRequest, ModelResponse } from '../../../src-main/core/llm/client.js';
import { ReinError } from '../../../src-main/core/errors.js';

export type ScriptedReply = string | Error | ModelResponse;

export interface ScriptedLlm extends LlmClient {
  requests: ModelRequest[];
}

export function response(text: string, stopReason = 'end_turn'): ModelResponse {
  return {
    content: [{ type: 'text', text }],
    stopReason,
    usage: { inputTokens: 10, outputTokens: 10, cacheReadTokens: 0, cacheCreationTokens: 0 },
    model: 'fake-small',
  };
}

export function scriptedLlm(...replies: ScriptedReply[]): ScriptedLlm {
  const queue = [...replies];
  const requests: ModelRequest[] = [];
  return {
    requests,
    async *turn(req: ModelRequest): AsyncGenerator<LlmEvent, ModelResponse> {
      requests.push(req);
      const next = queue.shift();
      if (next === undefined) throw new ReinError('llm_failed', 'fake model: no scripted reply left');
      if (next instanceof Error) throw next;
      const res = typeof next === 'string' ? response(next) : next;
      // Stream the text the way the real client does, so callers must drive the generator to its end.
      for (const b of res.content) if (b.type === 'text') yield { type: 'text_delta', text: b.text };
      return res;
    },
  };
}
