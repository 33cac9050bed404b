/** A model response's usage and cost added to the run's, and the `usage` event that tells it. */
import { emptyUsage, sumUsage, type ReinEvent, type UsageTotals } from '../../api/events.js';
import type { ModelResponse } from '../../llm/client.js';
import { addUsage, cacheHitRatio, costOf, type RequestUsage } from '../../llm/pricing.js';
import type { RunState } from '../runState.js';

export function accountUsage(state: RunState, response: ModelResponse): ReinEvent {
  const cost = costOf(response.usage, state.price);
  state.usage = addUsage(state.usage, response.usage, cost);
  return state.stamp({
    type: 'usage',
    model: response.model,
    request: requestTotals(response.usage, cost),
    run: state.usage,
    cache_hit_ratio: cacheHitRatio(sumUsage(state.usageBefore ?? emptyUsage(), state.usage)),
  });
}

function requestTotals(u: RequestUsage, cost: number): UsageTotals {
  return {
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    cache_read_tokens: u.cacheReadTokens,
    cache_creation_tokens: u.cacheCreationTokens,
    cost_usd: cost,
    requests: 1,
  };
}
