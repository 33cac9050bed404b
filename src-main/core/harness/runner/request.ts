/**
 * Turn preparation, the request half: the tools as exposed (deferred ones by catalogue), the system
 * blocks (rendered once per catalogue, not once per request), the housekept history with the cache
 * breakpoints, and the per-turn facts block that heads the user's message.
 */
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { ModelRequest } from '../../llm/client.js';
import { withCacheBreakpoints } from '../../llm/cacheBreakpoints.js';
import {
  assembleSystem,
  estimateSystemTokens,
  estimateToolsTokens,
  houseKeep,
  planToolExposure,
  renderVolatile,
  requestHistory,
  type HouseKeepOptions,
} from '../../context/index.js';
import { CORE_RULES } from '../prompt.js';
import type { RunState } from '../runState.js';

/** The system blocks for a deferred-tool catalogue: fixed for the run but for that catalogue (it grows as tool_search loads tools). */
export function systemFor(state: RunState, deferredCatalogue: string): [TextBlockParam, TextBlockParam] {
  const { systems, stableBase } = state.prompt;
  let system = systems.get(deferredCatalogue);
  if (!system)
    systems.set(
      deferredCatalogue,
      (system = assembleSystem(CORE_RULES, { ...stableBase, ...(deferredCatalogue ? { deferredCatalogue } : {}) })),
    );
  return system;
}

/** The per-turn facts (time, folder, model, memory), stored once per turn at the head of the user's message. */
export function volatileBlock(state: RunState): TextBlockParam {
  const { settings } = state;
  return {
    type: 'text',
    text: renderVolatile(
      {
        now: state.now(),
        cwd: state.input.toolContext.cwd,
        model: settings.model,
        contextWindow: settings.contextWindow,
        ...(state.prompt.memory ? { memory: state.prompt.memory } : {}),
      },
      requestHistory(state.session),
    ),
  };
}

/** The tools as the model sees them this turn, and the system blocks that go with their catalogue. */
export function exposure(state: RunState) {
  const { registry } = state.deps;
  const tools = planToolExposure(registry.list(), new Set(state.ctx.deferred.loaded), {
    definition: (t) => registry.definition(t),
  });
  return { definitions: tools.definitions, system: systemFor(state, tools.catalogue) };
}

/** Housekeeping rewrites old results only when the request nears half the window (see houseKeep). */
export function houseKeepOptions(
  state: RunState,
  system: Parameters<typeof estimateSystemTokens>[0],
  tools: Parameters<typeof estimateToolsTokens>[0],
): HouseKeepOptions {
  return {
    budget: {
      contextWindow: state.settings.contextWindow,
      fixedTokens: estimateSystemTokens(system) + estimateToolsTokens(tools),
    },
  };
}

/** The request for the next model call: tools as exposed, system prompt, housekept history, breakpoints. */
export function buildRequest(state: RunState, toolChoice: 'auto' | 'none'): ModelRequest {
  const { settings } = state;
  const { definitions, system } = exposure(state);
  const history = requestHistory(state.session);
  const messages =
    settings.housekeeping === false
      ? history
      : houseKeep(history, state.ctx.housekeeping, houseKeepOptions(state, system, definitions));
  const marked = withCacheBreakpoints({
    tools: definitions,
    system,
    messages,
    ...(settings.prefixCacheTtl ? { prefixTtl: settings.prefixCacheTtl } : {}),
  });
  return {
    model: settings.model,
    ...(settings.prefixCacheTtl === '1h' ? { cacheTtl: '1h' as const } : {}),
    maxTokens: settings.maxTokens,
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    system: marked.system,
    messages: marked.messages,
    tools: marked.tools,
    ...(toolChoice === 'none' ? { toolChoice } : {}),
  };
}
