/**
 * The agent loop: an async generator of ReinEvents. One call = one user turn: it appends the prompt to
 * the session, then alternates model turns and tool batches until the model answers without tools, the
 * iteration cap or spending cap is hit, the run is cancelled, or an error ends it. Every run ends with
 * exactly one `session_end` carrying the stop reason, and the session file is saved after every
 * iteration (nothing is lost on a crash).
 */
import type { ContentBlockParam, MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { emptyUsage, sumUsage, type ReinEvent, type ReinEventBody, type StopReason, type UsageTotals } from '../api/events.js';
import { errorMessage, isReinError } from '../errors.js';
import type { AssistantBlock, LlmClient, ModelRequest, ModelResponse } from '../llm/client.js';
import { withCacheBreakpoints, type CacheTtl } from '../llm/cacheBreakpoints.js';
import { addUsage, cacheHitRatio, costOf, priceFor, type Price, type RequestUsage } from '../llm/pricing.js';
import type { ApprovalBroker } from '../permissions/approvalBroker.js';
import type { PermissionPolicy } from '../permissions/types.js';
import type { PermissionMode, RunOrigin } from '../api/patterns.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Tool, ToolContext } from '../tools/tool.js';
import { DEFERRED_TOOLS_SLOT } from '../tools/deferredTools.js';
import { sessionSlots, slotKey } from '../tools/sessionSlots.js';
import { RUN_COSTS, type RunCosts } from '../tools/runCosts.js';
import type { SessionFile } from '../sessions/types.js';
import { sanitizeHistory } from '../sessions/sanitize.js';
import { executeToolCalls, TurnApprovals, type ToolCallRequest } from './executor.js';
import { Inbox, injectedMessageText } from './inbox.js';
import { LoopDetector } from './loopDetector.js';
import type { AuditLog } from '../audit/auditLog.js';
import { runHooks } from '../hooks/runHooks.js';
import { StopHookGate } from '../hooks/stopHookGate.js';
import type { GlobalConfig, GrantEntry } from '../config/schema.js';
import { CORE_RULES } from './prompt.js';
import {
  assembleSystem,
  renderVolatile,
  compactHard,
  compactIfNeeded,
  estimateSystemTokens,
  estimateToolsTokens,
  houseKeep,
  isPromptTooLong,
  planToolExposure,
  readContextState,
  requestHistory,
  resultCapForWindow,
  type CompactionResult,
  type HouseKeepOptions,
  type LastUsage,
  type SourceFacts,
} from '../context/index.js';

export const GUI_ITERATION_FLOOR = 75;
export const MAX_CONTINUATIONS = 3;

export const CONTINUE_PROMPT =
  'Your previous reply was cut off by the output limit. Continue exactly where you stopped, without repeating anything.';

/** Spending a tool causes outside the loop's own model turns (an MCP server's sampling request; cloud_delegate's reported cost, RunCosts). */
export interface RunSpending extends RunCosts {
  add(model: string, usage: RequestUsage): void;
}
export const RUN_SPENDING = slotKey<RunSpending>('run_spending');

export interface RunSettings {
  model: string;
  maxTokens: number;
  temperature?: number;
  maxIterations: number;
  /** 0 = no cap. */
  maxUsdPerRun: number;
  maxParallel: number;
  resultBudget: number;
  mode: PermissionMode;
  prices?: Record<string, Price>;
  /** The model server is on this machine or the local network: a model `prices` does not name costs $0 (pricing.ts). */
  localModel?: boolean;
  /** Tokens the model can read; compaction keeps requests under 85% of it. */
  contextWindow: number;
  /** Share of the window one tool result may take before it is saved to a file (default 0.1; 0 = no cap). */
  resultWindowShare?: number;
  /** The small model for summaries and write-before-compact (defaults to the run's model). */
  smallModel?: string;
  /** Off: old tool results and images are sent as they are (for measuring what housekeeping saves). */
  housekeeping?: boolean;
  /**
   * TTL of the cache marks on the tools and system prompt (cacheBreakpoints.ts): `1h` for runs that come
   * back to the same prefix within the hour but after five minutes (heartbeats every ≤ 1 h); default 5m.
   */
  prefixCacheTtl?: CacheTtl;
}

/**
 * What `session_start` says, known before the rest of the run is built: a caller that must answer fast
 * (the daemon) starts the loop with these and a `setup` that builds the rest (runAgentWhenReady).
 */
export interface RunStart {
  session: SessionFile;
  source: string;
  agent: string;
  origin: RunOrigin;
  /** The run's lane, carried on its approval requests (`cli`, `desktop`, a daemon route key). */
  route: string;
  model: string;
  cwd: string;
  signal: AbortSignal;
  now?: () => Date;
}

export interface RunInput extends RunStart {
  prompt: string;
  /** Called after every iteration with the session as it stands; must write atomically. */
  save: (session: SessionFile) => Promise<void>;
  /** The agent's AGENT.md. */
  persona?: string;
  /** Instruction files (AGENTS.md, CLAUDE.md, …), already capped. */
  instructions?: string;
  /** The skill catalogue (names and descriptions; `use_skill` loads a body). */
  skills?: readonly { name: string; description: string }[];
  /** Where the message came from (Slack channel, sender…): sticky for the session. */
  sourceFacts?: SourceFacts;
  /** MCP server name → the `context` its config gives (stable prompt part). */
  mcpContext?: Readonly<Record<string, string>>;
  /** MCP server name → the instructions the server sent at `initialize` (stable prompt part). */
  mcpInstructions?: Readonly<Record<string, string>>;
  /** The agent's memory as loaded for the prompt. */
  memory?: string;
  /** Memory folder for write-before-compact; absent = nothing is written. */
  memoryDir?: string;
  /** Problems found while preparing the run (skills, instructions), shown as warnings at its start. */
  warnings?: readonly string[];
  /**
   * Loads the prompt parts that can take a while (instruction files; memory, consolidated first when
   * that is due, which calls the model) once `session_start` is out, so whoever sent the message
   * learns at once that it was taken. What it returns is laid over `instructions`, `memory` and
   * `warnings`; it reports its own problems as warnings rather than throwing.
   */
  prepare?: () => Promise<PreparedParts>;
  settings: RunSettings;
  toolContext: ToolContext;
  inbox?: Inbox;
}

/** The part of a run that takes time to build (its runtime: tools, permissions, model client). */
export type RunSetup = () => Promise<{ input: Omit<RunInput, keyof RunStart>; deps: RunDeps }>;

export interface PreparedParts {
  instructions?: string;
  memory?: string;
  warnings?: readonly string[];
}

export interface RunDeps {
  llm: LlmClient;
  registry: ToolRegistry;
  policy: PermissionPolicy;
  broker: ApprovalBroker;
  onAlwaysAllow?: (tool: Tool, input: unknown, by: string, grant: GrantEntry) => Promise<string | void>;
  hooks?: GlobalConfig['hooks'];
  audit?: AuditLog;
}

export interface RunOutcome {
  stopReason: StopReason;
  text: string;
  usage: UsageTotals;
  iterations: number;
  error?: { code: string; message: string };
  /** False when the run ended before its loop began (its setup failed): nothing was saved. */
  started: boolean;
}

export function runAgent(input: RunInput, deps: RunDeps): AsyncGenerator<ReinEvent, RunOutcome> {
  return runAgentWhenReady(input, async () => ({ input, deps }));
}

/**
 * The loop, announcing the session before `setup` builds the rest of the run: `session_start` is the
 * first event whatever happens next, and a setup that fails ends the run with `error` and
 * `session_end` (nothing is saved: the run never started). The loop alone makes both events.
 */
export async function* runAgentWhenReady(start: RunStart, setup: RunSetup): AsyncGenerator<ReinEvent, RunOutcome> {
  const { session, signal } = start;
  const now = start.now ?? (() => new Date());
  let seq = 0;
  const stamp = (body: ReinEventBody): ReinEvent => ({ ...body, session_id: session.id, seq: seq++, at: now().toISOString() }) as ReinEvent;

  const resumed = session.messages.length > 0;
  yield stamp({ type: 'session_start', agent: start.agent, source: start.source, origin: start.origin, model: start.model, resumed, cwd: start.cwd });

  let ready: Awaited<ReturnType<RunSetup>>;
  try {
    ready = await setup();
  } catch (err) {
    const error = { code: isReinError(err) ? err.code : 'internal', message: isReinError(err) ? err.message : `run failed: ${errorMessage(err)}` };
    yield stamp({ type: 'error', ...error });
    const usage = emptyUsage();
    yield stamp({ type: 'session_end', stop_reason: 'error', text: '', usage, iterations: 0 });
    return { stopReason: 'error', text: '', usage, iterations: 0, error, started: false };
  }
  const input: RunInput = { ...ready.input, ...start };
  const deps = ready.deps;
  const { settings } = input;

  const clean = sanitizeHistory(session.messages, session.message_meta);
  session.messages = clean.messages;
  session.message_meta = clean.meta;

  const meta = (injected = false) => ({ source: input.source, timestamp: now().toISOString(), ...(injected ? { injected: true } : {}) });
  const appendUser = (blocks: ContentBlockParam[], injected = false) => {
    const last = session.messages[session.messages.length - 1];
    if (last && last.role === 'user') {
      // Two user messages in a row are merged: the API wants alternating roles.
      const prev: ContentBlockParam[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
      last.content = [...prev, ...blocks];
      return;
    }
    session.messages.push({ role: 'user', content: blocks });
    session.message_meta.push(meta(injected));
  };
  const appendAssistant = (blocks: ContentBlockParam[], injected = false) => {
    if (blocks.length === 0) return;
    session.messages.push({ role: 'assistant', content: blocks });
    session.message_meta.push(meta(injected));
  };

  const detector = new LoopDetector();
  // A Stop hook may keep the model going ("you forgot the tests"), at most 3 times per turn.
  const stopGate = new StopHookGate({ perTurn: 3, perRun: 3 });
  const background: Promise<unknown>[] = [];
  const warnings: string[] = [...(input.warnings ?? [])];
  const warn = (message: string) => void warnings.push(message);
  const flushWarnings = function* (): Generator<ReinEvent> {
    while (warnings.length > 0) yield stamp({ type: 'notice', level: 'warning', message: warnings.shift()! });
  };
  const hookOpts = { cwd: input.toolContext.cwd, envPassthrough: input.toolContext.envPassthrough ?? [], signal, log: (e: { level: string; event: string; command: string; message: string }) => e.level === 'warning' && warn(`${e.event} hook \`${e.command}\`: ${e.message}`) };
  const hookPayload = { session_id: session.id, agent: input.agent };

  const prepared = input.prepare ? await input.prepare() : {};
  const instructions = prepared.instructions ?? input.instructions;
  const memory = prepared.memory ?? input.memory;
  for (const w of prepared.warnings ?? []) warn(w);

  const { state: ctx, reset } = readContextState(session.context);
  // The working set tool_search fills is the very object saved in the session's context state.
  sessionSlots(input.toolContext).seed(DEFERRED_TOOLS_SLOT, ctx.deferred);
  for (const r of reset) warn(`context state of session ${session.id} was reset: ${r}`);
  const platform = `${process.platform} ${process.arch}`;
  const stableBase = {
    agent: input.agent,
    platform,
    ...(input.persona ? { persona: input.persona } : {}),
    ...(instructions ? { instructions } : {}),
    ...(input.skills && input.skills.length > 0 ? { skills: input.skills } : {}),
    ...(input.sourceFacts ? { sourceFacts: input.sourceFacts } : {}),
    ...(input.mcpContext && Object.keys(input.mcpContext).length > 0 ? { mcpContext: input.mcpContext } : {}),
    ...(input.mcpInstructions && Object.keys(input.mcpInstructions).length > 0 ? { mcpInstructions: input.mcpInstructions } : {}),
  };
  // The system blocks are fixed for the run but for the deferred-tool catalogue (it grows as tool_search
  // loads tools): rendered once per catalogue, not once per request.
  const systems = new Map<string, [TextBlockParam, TextBlockParam]>();
  const systemFor = (deferredCatalogue: string) => {
    let system = systems.get(deferredCatalogue);
    if (!system) systems.set(deferredCatalogue, (system = assembleSystem(CORE_RULES, { ...stableBase, ...(deferredCatalogue ? { deferredCatalogue } : {}) })));
    return system;
  };
  const volatileBlock = (): TextBlockParam => ({
    type: 'text',
    text: renderVolatile(
      {
        now: now(),
        cwd: input.toolContext.cwd,
        model: settings.model,
        contextWindow: settings.contextWindow,
        ...(memory ? { memory } : {}),
      },
      requestHistory(session),
    ),
  });
  // A save that failed stops the run at its next step: nothing it did after would be kept. The failure
  // is a value here, never a rejection out of the generator (which a daemon would not survive).
  let saveFailure: { code: string; message: string } | undefined;
  const save = async () => {
    session.context = ctx;
    try {
      await input.save(session);
      saveFailure = undefined;
    } catch (err) {
      saveFailure = saveFailureOf(session.id, err);
    }
  };

  // The first turn's system blocks are built up front, so a bad prompt part fails before anything is saved.
  systemFor('');
  const startBlocks: ContentBlockParam[] = [volatileBlock()];
  if (deps.hooks && deps.hooks.SessionStart.length > 0) {
    const started = await runHooks('SessionStart', deps.hooks.SessionStart, { ...hookPayload, source: input.source, prompt: input.prompt }, hookOpts);
    if (started.context.length > 0) startBlocks.push({ type: 'text', text: `<hook-context>\n${started.context.join('\n\n')}\n</hook-context>` });
  }
  appendUser([...startBlocks, { type: 'text', text: input.prompt }]);
  await save();

  const local = settings.localModel === true ? { local: true } : {};
  const price = priceFor(settings.model, settings.prices, local);
  const approvals = new TurnApprovals();

  let usage = emptyUsage();
  // Model turns made for a tool outside the loop's own (an MCP server's sampling) count in the run's usage and cap.
  const spending: RunSpending = {
    add: (model, u) => {
      usage = addUsage(usage, u, costOf(u, priceFor(model, settings.prices, local)));
    },
    addCost: (usd) => {
      if (Number.isFinite(usd) && usd > 0) usage = { ...usage, cost_usd: usage.cost_usd + usd };
    },
    overBudget: () => overBudget(),
  };
  sessionSlots(input.toolContext).seed(RUN_SPENDING, spending);
  sessionSlots(input.toolContext).seed(RUN_COSTS, spending);
  // The usage event reports the session's cache hit ratio: earlier runs of the session count too.
  const usageBefore = session.usage ?? emptyUsage();
  let iterations = 0;
  let continuations = 0;
  let carried = ''; // text of max_tokens continuations, joined into the final answer
  let lastText = '';
  let guiUsed = false;
  let denialNudged = false;
  let lastUsage: LastUsage | undefined;
  let zeroCacheStreak = 0;
  let cacheWarned = false;

  const finish = async function* (stopReason: StopReason, text: string, error?: { code: string; message: string }): AsyncGenerator<ReinEvent, RunOutcome> {
    await Promise.allSettled(background);
    yield* flushWarnings();
    session.usage = addTotals(session.usage, usage);
    await save();
    // A run stopped by a failed save tried once more here; failing the same way, it is that one error.
    const unsaved = saveFailure;
    if (unsaved && unsaved.message !== error?.message) yield stamp({ type: 'error', ...unsaved });
    if (error) yield stamp({ type: 'error', code: error.code, message: error.message });
    // An answer that could not be kept is no `final`: the caller (a CLI exit code, a client) must know.
    const reason: StopReason = unsaved ? 'error' : stopReason;
    const failure = error ?? unsaved;
    yield stamp({ type: 'session_end', stop_reason: reason, text, usage, iterations });
    return { stopReason: reason, text, usage, iterations, ...(failure ? { error: failure } : {}), started: true };
  };
  const overBudget = () => settings.maxUsdPerRun > 0 && usage.cost_usd >= settings.maxUsdPerRun;
  const budgetMessage = () =>
    `Spending cap reached: this run cost $${usage.cost_usd.toFixed(4)} of its $${settings.maxUsdPerRun.toFixed(2)} limit (budget.max_usd_per_run), so it stopped.`;

  for (;;) {
    const cap = guiUsed ? Math.max(settings.maxIterations, GUI_ITERATION_FLOOR) : settings.maxIterations;
    if (saveFailure) return yield* finish('error', carried + lastText, saveFailure);
    if (signal.aborted) return yield* finish('cancelled', carried + lastText);
    if (iterations >= cap) {
      const partial = carried + lastText;
      return yield* finish('max_iterations', partial, {
        code: 'max_iterations',
        message: `Stopped after ${iterations} iterations (max_iterations = ${cap}).${partial ? ' The partial answer is kept.' : ''}`,
      });
    }
    if (overBudget()) return yield* finish('budget', carried + lastText, { code: 'budget', message: budgetMessage() });

    yield* flushWarnings();
    const injected = input.inbox?.drain() ?? [];
    if (injected.length > 0) {
      appendUser([{ type: 'text', text: injectedMessageText(injected) }], true);
      yield stamp({ type: 'injected', texts: injected });
    }

    iterations++;
    const compaction = await compactBeforeRequest();
    if (compaction) yield stamp(compactionEvent(compaction));
    if (saveFailure) return yield* finish('error', carried + lastText, saveFailure);
    let response: ModelResponse;
    let streamed = '';
    let retriedTooLong = false;
    for (;;) {
      streamed = '';
      try {
        response = yield* callModel(buildRequest('auto'), (t) => (streamed += t));
        break;
      } catch (err) {
        if (signal.aborted || isReinError(err, 'llm_cancelled')) {
          // Keep what the user already saw.
          if (streamed) appendAssistant([{ type: 'text', text: streamed }]);
          return yield* finish('cancelled', carried + (streamed || lastText));
        }
        if (isPromptTooLong(err) && !retriedTooLong) {
          // The provider counted more than our estimate: compact harder and try once more.
          retriedTooLong = true;
          const hard = await compactHard(compactionInput(), compactionDeps());
          if (hard.compaction) {
            session.checkpoint = hard.compaction.checkpoint;
            input.toolContext.readTracker.forgetShownContent?.();
            yield stamp(compactionEvent(hard.compaction));
          }
          await save();
          if (saveFailure) return yield* finish('error', carried + lastText, saveFailure);
          continue;
        }
        const code = isReinError(err) ? err.code : 'llm_failed';
        const message = isPromptTooLong(err)
          ? `The conversation is too long for the model even after compacting it (${errorMessage(err)}). Start a new session or use a model with a larger context window.`
          : errorMessage(err);
        return yield* finish('error', carried + lastText, { code, message });
      }
    }
    lastUsage = { ...response.usage, messagesSent: requestHistory(session).length };
    if (response.usage.cacheReadTokens === 0 && iterations > 1) zeroCacheStreak++;
    else zeroCacheStreak = 0;
    if (zeroCacheStreak >= 3 && !cacheWarned) {
      cacheWarned = true;
      yield stamp({
        type: 'notice',
        level: 'warning',
        message: 'three requests in a row read nothing from the prompt cache: something in the request prefix is changing between requests (or the server does not cache)',
      });
    }

    const requestCost = costOf(response.usage, price);
    usage = addUsage(usage, response.usage, requestCost);
    yield stamp({
      type: 'usage',
      model: response.model,
      request: requestTotals(response.usage, requestCost),
      run: usage,
      cache_hit_ratio: cacheHitRatio(addTotals(usageBefore, usage)),
    });

    const text = textOf(response.content);
    const toolUses = response.content.filter((b): b is Extract<AssistantBlock, { type: 'tool_use' }> => b.type === 'tool_use');
    if (text) lastText = text;

    if (toolUses.length === 0) {
      if (response.stopReason === 'max_tokens' && text && continuations < MAX_CONTINUATIONS) {
        continuations++;
        carried += text;
        lastText = '';
        appendAssistant([{ type: 'text', text }]);
        appendUser([{ type: 'text', text: CONTINUE_PROMPT }], true);
        await save();
        continue;
      }
      if (approvals.deniedCount > 0 && !denialNudged && claimsSuccess(text)) {
        // One corrective nudge when the model reports success for something the user refused.
        denialNudged = true;
        appendAssistant([{ type: 'text', text }]);
        appendUser([{ type: 'text', text: DENIAL_NUDGE }], true);
        yield stamp({ type: 'loop_nudge', detector: 'success_after_denial', action: 'nudge', message: DENIAL_NUDGE });
        await save();
        lastText = '';
        continue;
      }
      if (deps.hooks && deps.hooks.Stop.length > 0) {
        const stop = await runHooks('Stop', deps.hooks.Stop, { ...hookPayload, final_text: carried + text }, hookOpts);
        if (stop.block && stopGate.allowBlock()) {
          appendAssistant(text ? [{ type: 'text', text }] : []);
          appendUser([{ type: 'text', text: stop.block.message }], true);
          yield stamp({ type: 'loop_nudge', detector: 'stop_hook', action: 'nudge', message: stop.block.message });
          await save();
          continue;
        }
      }
      appendAssistant(text ? [{ type: 'text', text }] : []);
      return yield* finish('final', carried + text);
    }

    if (overBudget()) {
      // Do not start tools the run can no longer pay to follow up on; keep the history valid (no dangling tool_use).
      appendAssistant(text ? [{ type: 'text', text }] : []);
      return yield* finish('budget', carried + lastText, { code: 'budget', message: budgetMessage() });
    }

    appendAssistant(response.content.map(toParam));
    const calls: ToolCallRequest[] = toolUses.map((t) => ({ id: t.id, name: t.name, input: t.input }));
    const outcome = yield* mapEvents(
      executeToolCalls(
        calls,
        {
          registry: deps.registry,
          policy: deps.policy,
          broker: deps.broker,
          ctx: input.toolContext,
          mode: settings.mode,
          source: input.source,
          agent: input.agent,
          origin: input.origin,
          route: input.route,
          approvals,
          maxParallel: settings.maxParallel,
          defaultBudget: settings.resultBudget,
          sessionGrants: ctx.approvals,
          budgetCap: resultCapForWindow(settings.contextWindow, settings.resultWindowShare),
          ...(deps.onAlwaysAllow ? { onAlwaysAllow: deps.onAlwaysAllow } : {}),
          ...(deps.hooks ? { hooks: { pre: deps.hooks.PreToolUse, post: deps.hooks.PostToolUse } } : {}),
          ...(deps.audit ? { audit: deps.audit } : {}),
          detector,
          background,
          warn,
        },
        signal,
      ),
      stamp,
    );
    if (outcome.guiUsed) guiUsed = true;
    appendUser(outcome.results);

    // A result marked `final` (a cloud deliverable) of the response's only call is the answer as it is:
    // no model turn to summarise (and shorten) it. Stop hooks still have their say.
    const only = outcome.executed.length === 1 ? outcome.executed[0] : undefined;
    const deliverable = only?.ran && only.result.ok && !signal.aborted && only.answer?.trim() ? only.answer : undefined;
    if (deliverable !== undefined) {
      yield stamp({ type: 'text_delta', text: deliverable });
      appendAssistant([{ type: 'text', text: deliverable }]);
      lastText = deliverable;
      if (deps.hooks && deps.hooks.Stop.length > 0) {
        const stop = await runHooks('Stop', deps.hooks.Stop, { ...hookPayload, final_text: carried + deliverable }, hookOpts);
        if (stop.block && stopGate.allowBlock()) {
          appendUser([{ type: 'text', text: stop.block.message }], true);
          yield stamp({ type: 'loop_nudge', detector: 'stop_hook', action: 'nudge', message: stop.block.message });
          await save();
          continue;
        }
      }
      return yield* finish('final', carried + deliverable);
    }

    const verdict = detector.check();
    if (verdict.action === 'nudge' && verdict.message) {
      appendUser([{ type: 'text', text: verdict.message }], true);
      yield stamp({ type: 'loop_nudge', detector: verdict.detector ?? 'loop', action: 'nudge', message: verdict.message });
    }
    await save();
    if (saveFailure) return yield* finish('error', carried + lastText, saveFailure);
    if (verdict.action === 'force_stop') {
      const message = verdict.message ?? 'You are going in circles. Stop calling tools and answer now with what you have.';
      appendUser([{ type: 'text', text: message }], true);
      yield stamp({ type: 'loop_nudge', detector: verdict.detector ?? 'loop', action: 'force_stop', message });
      return yield* forcedAnswer();
    }
  }

  /** The request for the next model call: tools as exposed, system prompt, housekept history, breakpoints. */
  function buildRequest(toolChoice: 'auto' | 'none'): ModelRequest {
    const exposure = planToolExposure(deps.registry.list(), new Set(ctx.deferred.loaded), { definition: (t) => deps.registry.definition(t) });
    const system = systemFor(exposure.catalogue);
    const history = requestHistory(session);
    const messages = settings.housekeeping === false ? history : houseKeep(history, ctx.housekeeping, houseKeepOptions(system, exposure.definitions));
    const marked = withCacheBreakpoints({ tools: exposure.definitions, system, messages, ...(settings.prefixCacheTtl ? { prefixTtl: settings.prefixCacheTtl } : {}) });
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

  /** Housekeeping rewrites old results only when the request nears half the window (see houseKeep). */
  function houseKeepOptions(system: Parameters<typeof estimateSystemTokens>[0], tools: Parameters<typeof estimateToolsTokens>[0]): HouseKeepOptions {
    return { budget: { contextWindow: settings.contextWindow, fixedTokens: estimateSystemTokens(system) + estimateToolsTokens(tools) } };
  }

  function compactionInput() {
    const exposure = planToolExposure(deps.registry.list(), new Set(ctx.deferred.loaded), { definition: (t) => deps.registry.definition(t) });
    const system = systemFor(exposure.catalogue);
    const options = houseKeepOptions(system, exposure.definitions);
    return {
      session,
      contextWindow: settings.contextWindow,
      fixedTokens: options.budget!.fixedTokens,
      ...(lastUsage ? { lastUsage } : {}),
      state: ctx.compaction,
      housekeeping: { state: ctx.housekeeping, options },
    };
  }

  function compactionDeps() {
    return {
      llm: deps.llm,
      model: settings.smallModel ?? settings.model,
      ...(input.memoryDir ? { memoryDir: input.memoryDir } : {}),
      signal,
      now,
      warn,
    };
  }

  /** Proactive compaction at 85% of the window (write-before-compact, summary, checkpoint). */
  async function compactBeforeRequest(): Promise<CompactionResult | undefined> {
    let result: CompactionResult | undefined;
    try {
      result = await compactIfNeeded(compactionInput(), compactionDeps());
    } catch (err) {
      warn(`compaction failed, the history is sent as it is: ${errorMessage(err)}`);
      return undefined;
    }
    if (!result) return undefined;
    session.checkpoint = result.checkpoint;
    lastUsage = undefined; // the next measurement is an estimate of the compacted history
    input.toolContext.readTracker.forgetShownContent?.();
    await save();
    return result;
  }

  function compactionEvent(r: CompactionResult): ReinEventBody {
    return { type: 'compaction', dropped_messages: r.droppedMessages, tokens_before: r.tokensBefore, tokens_after: r.tokensAfter, reason: r.reason };
  }

  /** Streams one model turn, yielding text deltas and retry notices; returns the response and accounts its cost. */
  async function* callModel(request: ModelRequest, onText: (t: string) => void): AsyncGenerator<ReinEvent, ModelResponse> {
    const turn = deps.llm.turn(request, signal);
    for (;;) {
      const step = await turn.next();
      if (step.done) return step.value;
      const ev = step.value;
      if (ev.type === 'text_delta') {
        onText(ev.text);
        yield stamp({ type: 'text_delta', text: ev.text });
      } else {
        yield stamp({ type: 'retry', attempt: ev.attempt, max_attempts: ev.maxAttempts, reason: ev.reason, delay_ms: ev.delayMs });
      }
    }
  }

  /** One last model call that must answer in text: the end of a run the loop detector stopped. */
  async function* forcedAnswer(): AsyncGenerator<ReinEvent, RunOutcome> {
    iterations++;
    let streamed = '';
    try {
      const turn = deps.llm.turn(buildRequest('none'), signal);
      for (;;) {
        const step = await turn.next();
        if (step.done) {
          const response = step.value;
          const cost = costOf(response.usage, price);
          usage = addUsage(usage, response.usage, cost);
          yield stamp({ type: 'usage', model: response.model, request: requestTotals(response.usage, cost), run: usage, cache_hit_ratio: cacheHitRatio(addTotals(usageBefore, usage)) });
          const text = textOf(response.content);
          appendAssistant(text ? [{ type: 'text', text }] : []);
          return yield* finish('final', carried + (text || lastText));
        }
        if (step.value.type === 'text_delta') {
          streamed += step.value.text;
          yield stamp({ type: 'text_delta', text: step.value.text });
        }
      }
    } catch (err) {
      if (streamed) appendAssistant([{ type: 'text', text: streamed }]);
      if (signal.aborted || isReinError(err, 'llm_cancelled')) return yield* finish('cancelled', carried + (streamed || lastText));
      return yield* finish('error', carried + lastText, { code: isReinError(err) ? err.code : 'llm_failed', message: errorMessage(err) });
    }
  }
}

/**
 * A failed save as the run's error: a ReinError as the store words it (a full disk: `disk_full`, "cannot
 * save session S to FILE: no space left on device"), anything else as `session_save_failed`.
 */
function saveFailureOf(sessionId: string, err: unknown): { code: string; message: string } {
  if (isReinError(err)) return { code: err.code, message: err.message };
  return { code: 'session_save_failed', message: `could not save session ${sessionId}: ${errorMessage(err)}` };
}

const DENIAL_NUDGE =
  'Note: at least one of your tool calls in this turn was DENIED and did not run. Your reply sounds as if everything succeeded. ' +
  'Correct it: say plainly which actions did not happen because they were denied, and what the user can do instead.';

function claimsSuccess(text: string): boolean {
  return /\b(done|completed|successfully|i('ve| have) (created|written|deleted|removed|updated|run|executed|installed|changed|saved)|has been (created|written|deleted|removed|updated|saved))\b/i.test(text);
}

async function* mapEvents<T>(gen: AsyncGenerator<ReinEventBody, T>, stamp: (b: ReinEventBody) => ReinEvent): AsyncGenerator<ReinEvent, T> {
  for (;;) {
    const step = await gen.next();
    if (step.done) return step.value;
    yield stamp(step.value);
  }
}

function textOf(blocks: readonly AssistantBlock[]): string {
  return blocks
    .filter((b): b is Extract<AssistantBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

function toParam(b: AssistantBlock): ContentBlockParam {
  return b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: b.id, name: b.name, input: b.input as Record<string, unknown> };
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

function addTotals(a: UsageTotals | undefined, b: UsageTotals): UsageTotals {
  return sumUsage(a ?? emptyUsage(), b);
}

export type { MessageParam };
