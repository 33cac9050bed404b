/** The schedule tools: list and show only read; create, update and remove change what runs later, so they ask. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { createPermissionEngine } from '../../../src-main/core/permissions/engine.js';
import { createScheduleTools } from '../../../src-main/core/tools/builtin/schedule.js';
import { SessionReadTracker } from '../../../src-main/core/tools/readTracker.js';
import type { Tool, ToolContext } from '../../../src-main/core/tools/tool.js';

async function setup() {
  const home = await mkdtemp(join(tmpdir(), 'rein-sched-tools-'));
  const tools = Object.fromEntries(
    createScheduleTools({ env: { REIN_SCHEDULE_BACKEND: 'daemon' }, config: GlobalConfig.parse({}) }).map((t) => [
      t.name,
      t,
    ]),
  ) as Record<string, Tool>;
  const ctx: ToolContext = {
    cwd: home,
    sessionId: 's',
    sessionDir: join(home, 'side'),
    reinHome: home,
    agent: 'default',
    readTracker: new SessionReadTracker(),
    egress: async () => ({ allowed: true }),
  };
  const call = (name: string, input: unknown) =>
    tools[name]!.call(tools[name]!.input.parse(input), ctx, new AbortController().signal);
  return { home, tools, call };
}

describe('schedule tools', () => {
  it('create, list, show, update and remove a schedule', async () => {
    const t = await setup();
    const created = await t.call('schedule_create', { cron: '0 9 * * 1-5', prompt: 'check CI' });
    expect(created.ok).toBe(true);
    const id = /Schedule created: ([0-9a-f]{8})/.exec(created.content)![1]!;
    expect((await t.call('schedule_list', {})).content).toContain(`${id} | agent=default | cron=0 9 * * 1-5 | enabled`);
    const shown = JSON.parse((await t.call('schedule_show', { id, count: 2 })).content);
    expect(shown).toMatchObject({ id, prompt: 'check CI' });
    expect(shown.next).toHaveLength(2);
    expect((await t.call('schedule_update', { id, enabled: false })).content).toContain('disabled');
    expect((await t.call('schedule_remove', { id })).ok).toBe(true);
    expect((await t.call('schedule_list', {})).content).toBe('No schedules.');
  });

  it('tells the model what is wrong with a bad expression, and that an id is unknown', async () => {
    const t = await setup();
    const bad = await t.call('schedule_create', { cron: '0 25 * * *', prompt: 'x' });
    expect(bad).toMatchObject({ ok: false, errorKind: 'validation' });
    expect(bad.content).toContain('hour');
    expect((await t.call('schedule_remove', { id: 'deadbeef' })).content).toContain('no schedule deadbeef');
  });

  it('take catch_up on create and update, show it, and name the field when it is wrong', async () => {
    const t = await setup();
    const id = /Schedule created: ([0-9a-f]{8})/.exec(
      (await t.call('schedule_create', { cron: '@daily', prompt: 'report', catch_up: 'within 2h' })).content,
    )![1]!;
    expect(JSON.parse((await t.call('schedule_show', { id })).content)).toMatchObject({ catch_up: 'within 2h' });
    expect((await t.call('schedule_update', { id, catch_up: 'skip' })).content).toContain('catch_up=skip');
    const bad = await t.call('schedule_update', { id, catch_up: 'whenever' });
    expect(bad).toMatchObject({ ok: false, errorKind: 'validation' });
    expect(bad.content).toContain('catch_up:');
  });

  it('asks a person for create, update and remove; list and show run without asking', async () => {
    const t = await setup();
    const engine = createPermissionEngine({ permissions: {}, home: t.home });
    const decide = (name: string, input: unknown) =>
      engine.check({
        tool: t.tools[name]!,
        input,
        cwd: t.home,
        mode: 'default',
        source: 'cli',
        origin: 'attended',
        agent: 'default',
      });
    expect((await decide('schedule_list', {})).decision).toBe('allow');
    expect((await decide('schedule_show', { id: 'deadbeef' })).decision).toBe('allow');
    expect((await decide('schedule_create', { cron: '@daily', prompt: 'x' })).decision).toBe('ask');
    expect((await decide('schedule_update', { id: 'deadbeef', enabled: true })).decision).toBe('ask');
    expect((await decide('schedule_remove', { id: 'deadbeef' })).decision).toBe('ask');
  });
});
