/**
 * The one object a run keeps between its steps (the runner's steps in runner/ read and change it, and
 * nothing else is shared between them): what the run was given, the session it writes, the counters
 * and texts the stop checks read, and the failure of its last save. One per run, never shared.
 */
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { emptyUsage, type ReinEvent, type ReinEventBody, type StopReason, type UsageTotals } from '../api/events.js';
import { priceFor, type Price } from '../llm/pricing.js';
import type { SessionFile } from '../sessions/types.js';
import { sessionSlots } from '../tools/sessionSlots.js';
import { DEFERRED_TOOLS_SLOT } from '../tools/deferredTools.js';
import { StopHookGate } from '../hooks/stopHookGate.js';
import type { RunHooksOptions } from '../hooks/runHooks.js';
import { readContextState, type ContextState, type LastUsage, type StableParts } from '../context/index.js';
import { TurnApprovals } from './executor.js';
import { LoopDetector } from './loopDetector.js';
import type { PreparedParts, RunDeps, RunInput, RunSettings } from './runTypes.js';

export type Stamp = (body: ReinEventBody) => ReinEvent;

export interface RunError {
  code: string;
  message: string;
}

/** How a run ends: the stop reason, the answer as it stands, and the error to report (if any). */
export interface RunEnd {
  reason: StopReason;
  text: string;
  error?: RunError;
}

/** What a step tells the runner: another iteration, the end, or one last model call without tools. */
export type NextStep = { type: 'run_again' } | { type: 'end'; end: RunEnd } | { type: 'force_answer' };

export const RUN_AGAIN: NextStep = { type: 'run_again' };
export const endWith = (end: RunEnd): NextStep => ({ type: 'end', end });

/** The stable prompt parts of the run (system blocks rendered once per deferred-tool catalogue). */
export interface PromptParts {
  readonly stableBase: StableParts;
  readonly memory: string | undefined;
  readonly systems: Map<string, [TextBlockParam, TextBlockParam]>;
}

export interface RunState {
  readonly input: RunInput;
  readonly deps: RunDeps;
  readonly settings: RunSettings;
  readonly session: SessionFile;
  readonly signal: AbortSignal;
  readonly now: () => Date;
  readonly stamp: Stamp;
  /** The session's context state (deferred tools, housekeeping, compaction, grants): saved with it. */
  readonly ctx: ContextState;
  readonly prompt: PromptParts;
  readonly approvals: TurnApprovals;
  readonly detector: LoopDetector;
  /** A Stop hook may keep the model going ("you forgot the tests"), at most 3 times per turn. */
  readonly stopGate: StopHookGate;
  /** Work that must finish before the run ends (audit lines, PostToolUse hooks). */
  readonly background: Promise<unknown>[];
  /** Warnings not yet told (hooks, compaction, preparation): flushed as notices between steps. */
  readonly warnings: string[];
  readonly hookOptions: RunHooksOptions;
  readonly hookPayload: { session_id: string; agent: string };
  readonly price: Price;
  /** The session's usage before this run: the usage event's cache hit ratio counts earlier runs too. */
  readonly usageBefore: UsageTotals;
  usage: UsageTotals;
  iterations: number;
  continuations: number;
  /** Text of max_tokens continuations, joined into the final answer. */
  carried: string;
  lastText: string;
  guiUsed: boolean;
  denialNudged: boolean;
  lastUsage: LastUsage | undefined;
  zeroCacheStreak: number;
  cacheWarned: boolean;
  /** A save that failed: the run stops at its next step with this error (a value, never a rejection). */
  saveFailure: RunError | undefined;
}

/** The state of a run whose input is complete and whose slow prompt parts are loaded. */
export function createRunState(input: RunInput, deps: RunDeps, stamp: Stamp, prepared: PreparedParts): RunState {
  const { session, settings } = input;
  const warnings: string[] = [...(input.warnings ?? [])];
  const instructions = prepared.instructions ?? input.instructions;
  const memory = prepared.memory ?? input.memory;
  for (const w of prepared.warnings ?? []) warnings.push(w);

  const { state: ctx, reset } = readContextState(session.context);
  // The working set tool_search fills is the very object saved in the session's context state.
  sessionSlots(input.toolContext).seed(DEFERRED_TOOLS_SLOT, ctx.deferred);
  for (const r of reset) warnings.push(`context state of session ${session.id} was reset: ${r}`);

  const stableBase: StableParts = {
    agent: input.agent,
    platform: `${process.platform} ${process.arch}`,
    ...(input.persona ? { persona: input.persona } : {}),
    ...(instructions ? { instructions } : {}),
    ...(input.skills && input.skills.length > 0 ? { skills: input.skills } : {}),
    ...(input.sourceFacts ? { sourceFacts: input.sourceFacts } : {}),
    ...(input.mcpContext && Object.keys(input.mcpContext).length > 0 ? { mcpContext: input.mcpContext } : {}),
    ...(input.mcpInstructions && Object.keys(input.mcpInstructions).length > 0
      ? { mcpInstructions: input.mcpInstructions }
      : {}),
  };
  const hookOptions: RunHooksOptions = {
    cwd: input.toolContext.cwd,
    envPassthrough: input.toolContext.envPassthrough ?? [],
    signal: input.signal,
    log: (e) => e.level === 'warning' && void warnings.push(`${e.event} hook \`${e.command}\`: ${e.message}`),
  };
  return {
    input,
    deps,
    settings,
    session,
    signal: input.signal,
    now: input.now ?? (() => new Date()),
    stamp,
    ctx,
    prompt: { stableBase, memory, systems: new Map() },
    approvals: new TurnApprovals(),
    detector: new LoopDetector(),
    stopGate: new StopHookGate({ perTurn: 3, perRun: 3 }),
    background: [],
    warnings,
    hookOptions,
    hookPayload: { session_id: session.id, agent: input.agent },
    price: priceFor(settings.model, settings.prices, localOf(settings)),
    usageBefore: session.usage ?? emptyUsage(),
    usage: emptyUsage(),
    iterations: 0,
    continuations: 0,
    carried: '',
    lastText: '',
    guiUsed: false,
    denialNudged: false,
    lastUsage: undefined,
    zeroCacheStreak: 0,
    cacheWarned: false,
    saveFailure: undefined,
  };
}

/** A model server on this machine or the local network: a model `prices` does not name costs $0. */
export const localOf = (settings: RunSettings): { local?: boolean } =>
  settings.localModel === true ? { local: true } : {};

export function warn(state: RunState, message: string): void {
  state.warnings.push(message);
}

export function* flushWarnings(state: RunState): Generator<ReinEvent> {
  while (state.warnings.length > 0)
    yield state.stamp({ type: 'notice', level: 'warning', message: state.warnings.shift()! });
}

/** The spending cap (budget.max_usd_per_run) is reached; 0 is no cap. */
export const overBudget = (state: RunState): boolean =>
  state.settings.maxUsdPerRun > 0 && state.usage.cost_usd >= state.settings.maxUsdPerRun;
