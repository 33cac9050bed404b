/**
 * The run's first step, after `session_start` and the setup: the history sanitised, the slow prompt
 * parts loaded, the run state made, the SessionStart hooks' context and the prompt appended as the
 * turn's user message (after the per-turn facts) and saved, and the run's spending seeded for the
 * tools that spend on its behalf (an MCP server's sampling, cloud_delegate's reported cost).
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { addUsage, costOf, priceFor } from '../../llm/pricing.js';
import { runHooks } from '../../hooks/runHooks.js';
import { sanitizeHistory } from '../../sessions/sanitize.js';
import { sessionSlots } from '../../tools/sessionSlots.js';
import { RUN_COSTS } from '../../tools/runCosts.js';
import { RUN_SPENDING, type RunDeps, type RunInput, type RunSpending } from '../runTypes.js';
import { createRunState, localOf, overBudget, type RunState, type Stamp } from '../runState.js';
import { appendUser } from './transcript.js';
import { systemFor, volatileBlock } from './request.js';
import { save } from './persistence.js';

export async function prepareRun(input: RunInput, deps: RunDeps, stamp: Stamp): Promise<RunState> {
  const { session } = input;
  const clean = sanitizeHistory(session.messages, session.message_meta);
  session.messages = clean.messages;
  session.message_meta = clean.meta;

  const prepared = input.prepare ? await input.prepare() : {};
  const state = createRunState(input, deps, stamp, prepared);

  // The first turn's system blocks are built up front, so a bad prompt part fails before anything is saved.
  systemFor(state, '');
  const startBlocks: ContentBlockParam[] = [volatileBlock(state)];
  const sessionStart = deps.hooks?.SessionStart;
  if (sessionStart && sessionStart.length > 0) {
    const started = await runHooks(
      'SessionStart',
      sessionStart,
      { ...state.hookPayload, source: input.source, prompt: input.prompt },
      state.hookOptions,
    );
    if (started.context.length > 0)
      startBlocks.push({ type: 'text', text: `<hook-context>\n${started.context.join('\n\n')}\n</hook-context>` });
  }
  appendUser(state, [...startBlocks, { type: 'text', text: input.prompt }]);
  await save(state);
  seedSpending(state);
  return state;
}

/** Model turns made for a tool outside the loop's own (an MCP server's sampling) count in the run's usage and cap. */
function seedSpending(state: RunState): void {
  const { settings } = state;
  const spending: RunSpending = {
    add: (model, u) => {
      state.usage = addUsage(state.usage, u, costOf(u, priceFor(model, settings.prices, localOf(settings))));
    },
    addCost: (usd) => {
      if (Number.isFinite(usd) && usd > 0) state.usage = { ...state.usage, cost_usd: state.usage.cost_usd + usd };
    },
    overBudget: () => overBudget(state),
  };
  sessionSlots(state.input.toolContext).seed(RUN_SPENDING, spending);
  sessionSlots(state.input.toolContext).seed(RUN_COSTS, spending);
}
