/**
 * `schedule_create`, `schedule_list`, `schedule_show`, `schedule_update`, `schedule_remove`: the agent
 * manages the schedules of Rein (all agents' schedules live in one store). Listing and showing only
 * read; every other call changes what runs on its own later, so it is not read-only and the permission
 * engine asks a person.
 */
import { callSummaryOf } from '../../api/toolSummary.js';
import { z } from 'zod';
import { AgentName } from '../../api/patterns.js';
import type { GlobalConfig } from '../../config/schema.js';
import { errorMessage, isReinError } from '../../errors.js';
import { lastRunView } from '../../schedule/lastRunView.js';
import type { Schedules } from '../../schedule/schedules.js';
import type { Schedule } from '../../schedule/store.js';
import { errorResult, okResult, type Tool, type ToolResult } from '../tool.js';
import { SCHEDULE_CHANGE_TRAITS } from './builtinTraits.js';

export interface ScheduleToolDeps {
  env: NodeJS.ProcessEnv;
  config: Pick<GlobalConfig, 'schedule'>;
}

const Id = z
  .string()
  .regex(/^[0-9a-f]{8}$/, 'expected a schedule id (8 hex characters, see schedule_list)')
  .describe('The schedule id (from schedule_list).');
const Cron = z
  .string()
  .min(1)
  .describe(
    'Five-field cron expression in local time: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5" (weekdays 09:00).',
  );
const Prompt = z
  .string()
  .min(1)
  .describe('What the agent is told at each run; it runs unattended (nobody can approve tool calls).');
const CatchUp = z
  .string()
  .min(1)
  .max(40)
  // Checked by the store (schedule/catchUp.ts), which this file loads only at the first call.
  .describe(
    'What a time missed while the computer was off or asleep gets: "once" (default: one catch-up run), "skip" (none), or "within <duration>" such as "within 2h" (one, only if the missed time is at most that long ago).',
  );

function describe(s: Schedule): string {
  const last = s.last_run ? ` | last=${lastRunView(s.last_run).status} ${s.last_run.at}` : '';
  const catchUp = s.catch_up && s.catch_up !== 'once' ? ` | catch_up=${s.catch_up}` : '';
  return `${s.id} | agent=${s.agent} | cron=${s.cron} | ${s.enabled ? 'enabled' : 'disabled'}${catchUp}${last} | ${s.prompt.length > 80 ? `${s.prompt.slice(0, 79)}…` : s.prompt}`;
}

async function guarded(fn: () => Promise<string>): Promise<ToolResult> {
  try {
    return okResult(await fn());
  } catch (e) {
    if (isReinError(e, 'invalid_input')) return errorResult('validation', e.message);
    if (isReinError(e, 'not_found')) return errorResult('business', e.message);
    return errorResult('business', errorMessage(e));
  }
}

export function createScheduleTools(deps: ScheduleToolDeps): Tool[] {
  // The store (cron parsing, launchd) is loaded by the first call, not with every runtime's tool list.
  const schedules = async (home: string): Promise<Schedules> => {
    const { Schedules } = await import('../../schedule/schedules.js');
    return new Schedules({ home, env: deps.env, config: deps.config });
  };

  const create: Tool<{ cron: string; prompt: string; agent?: string | undefined; catch_up?: string | undefined }> = {
    name: 'schedule_create',
    // The schedule store is Rein's run-later state: a person decides each change, in every mode.
    traits: SCHEDULE_CHANGE_TRAITS,
    source: 'local',
    description:
      'Create a schedule: the agent (default: the default agent) runs the prompt at the times of the cron expression, also while the app is closed. Returns the new schedule id.',
    input: z.strictObject({
      cron: Cron,
      prompt: Prompt,
      agent: AgentName.optional().describe('A named agent; default: the default agent.'),
      catch_up: CatchUp.optional(),
    }),
    isReadOnly: () => false,
    isDestructive: () => false,
    summarize: (i) => callSummaryOf('schedule_create', i),
    call: (i, ctx) =>
      guarded(
        async () =>
          `Schedule created: ${(await (await schedules(ctx.reinHome)).create({ cron: i.cron, prompt: i.prompt, ...(i.agent ? { agent: i.agent } : {}), ...(i.catch_up !== undefined ? { catch_up: i.catch_up } : {}) })).id}`,
      ),
  };

  const list: Tool<Record<string, never>> = {
    name: 'schedule_list',
    source: 'local',
    description: 'List every schedule: id, agent, cron, enabled, last run, prompt.',
    input: z.strictObject({}),
    isReadOnly: () => true,
    isDestructive: () => false,
    call: (_i, ctx) =>
      guarded(async () => {
        const all = await (await schedules(ctx.reinHome)).list();
        return all.length === 0 ? 'No schedules.' : all.map(describe).join('\n');
      }),
  };

  const show: Tool<{ id: string; count?: number | undefined }> = {
    name: 'schedule_show',
    source: 'local',
    description: 'Show one schedule in full, with its next fire times and its last run.',
    input: z.strictObject({
      id: Id,
      count: z.number().int().min(1).max(20).optional().describe('How many next fire times (default 5).'),
    }),
    isReadOnly: () => true,
    isDestructive: () => false,
    call: (i, ctx) =>
      guarded(async () => {
        const all = await schedules(ctx.reinHome);
        const s = await all.get(i.id);
        const next = s.enabled ? (await all.next(i.id, i.count ?? 5)).map((d) => d.toString()) : [];
        return JSON.stringify(
          { ...s, catch_up: s.catch_up ?? 'once', ...(s.last_run ? { last_run: lastRunView(s.last_run) } : {}), next },
          null,
          2,
        );
      }),
  };

  const update: Tool<{
    id: string;
    cron?: string | undefined;
    prompt?: string | undefined;
    agent?: string | undefined;
    enabled?: boolean | undefined;
    catch_up?: string | undefined;
  }> = {
    name: 'schedule_update',
    // The schedule store is Rein's run-later state: a person decides each change, in every mode.
    traits: SCHEDULE_CHANGE_TRAITS,
    source: 'local',
    description:
      'Change a schedule: its cron expression, prompt, agent, catch-up rule, or whether it is enabled. Give the id and at least one change.',
    input: z.strictObject({
      id: Id,
      cron: Cron.optional(),
      prompt: Prompt.optional(),
      agent: AgentName.optional(),
      enabled: z.boolean().optional(),
      catch_up: CatchUp.optional(),
    }),
    isReadOnly: () => false,
    isDestructive: () => false,
    summarize: (i) => callSummaryOf('schedule_update', i),
    call: (i, ctx) =>
      guarded(async () => {
        const { id, ...patch } = i;
        return `Schedule updated: ${describe(await (await schedules(ctx.reinHome)).update(id, patch))}`;
      }),
  };

  const remove: Tool<{ id: string }> = {
    name: 'schedule_remove',
    // The schedule store is Rein's run-later state: a person decides each change, in every mode.
    traits: SCHEDULE_CHANGE_TRAITS,
    source: 'local',
    description: 'Remove a schedule (its launchd job too). Its logs stay in the schedule folder.',
    input: z.strictObject({ id: Id }),
    isReadOnly: () => false,
    isDestructive: () => true,
    call: (i, ctx) =>
      guarded(async () => `Schedule removed: ${(await (await schedules(ctx.reinHome)).remove(i.id)).id}`),
  };

  return [create, list, show, update, remove];
}
