/**
 * The daemon backend's clock: due schedules fire once a minute, a clock jump (sleep) catches a missed
 * run up once, and a run due while every slot is busy is skipped and recorded, never dropped silently.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScheduleStore, type LastRun, type Schedule } from '../../../src-main/core/schedule/store.js';
import { ScheduleClock } from '../../../src-main/core/triggers/scheduleClock.js';

async function setup(maxConcurrent = 5) {
  const h = await mkdtemp(join(tmpdir(), 'rein-clock-'));
  let now = new Date(2026, 0, 5, 8, 59, 30).getTime(); // a Monday
  const store = new ScheduleStore(h, { now: () => new Date(now - 86_400_000) });
  const runs: Array<{ id: string; note?: string }> = [];
  const skipped: Array<{ id: string; run: LastRun }> = [];
  const hold: Array<() => void> = [];
  const clock = new ScheduleClock({
    store,
    maxConcurrent,
    now: () => now,
    setTimer: () => ({ cancel: () => undefined }),
    run: (s: Schedule, _t, note) => {
      runs.push({ id: s.id, ...(note ? { note } : {}) });
      return new Promise<void>((ok) => hold.push(ok));
    },
    skipped: async (s, run) => void skipped.push({ id: s.id, run }),
  });
  return { store, clock, runs, skipped, hold, at: (ms: number) => (now = ms) };
}

describe('ScheduleClock', () => {
  it('fires a due schedule at its minute, once', async () => {
    const t = await setup();
    const s = await t.store.create({ cron: '0 9 * * 1-5', prompt: 'standup' });
    await t.clock.look();
    expect(t.runs).toEqual([]);
    t.at(new Date(2026, 0, 5, 9, 0, 1).getTime());
    await t.clock.look();
    await t.clock.look();
    expect(t.runs).toEqual([{ id: s.id }]);
  });

  it('after a jump over a due minute (the machine slept), runs it once and says why', async () => {
    const t = await setup();
    const s = await t.store.create({ cron: '0 9 * * *', prompt: 'report' });
    await t.clock.look(); // 08:59
    t.at(new Date(2026, 0, 5, 11, 30, 0).getTime()); // woke at 11:30
    await t.clock.look();
    expect(t.runs).toHaveLength(1);
    expect(t.runs[0]).toMatchObject({ id: s.id, note: expect.stringContaining('catching up') });
    t.at(new Date(2026, 0, 5, 11, 31, 0).getTime());
    await t.clock.look();
    expect(t.runs).toHaveLength(1);
  });

  it('skips (and records) a due run while every slot is busy; disabled schedules never fire', async () => {
    const t = await setup(1);
    const a = await t.store.create({ cron: '* * * * *', prompt: 'a' });
    const b = await t.store.create({ cron: '* * * * *', prompt: 'b' });
    await t.store.create({ cron: '* * * * *', prompt: 'off', enabled: false });
    await t.clock.look();
    expect(t.runs.map((r) => r.id)).toEqual([a.id]);
    expect(t.skipped).toEqual([
      {
        id: b.id,
        run: expect.objectContaining({
          status: 'skipped',
          message: expect.stringContaining('schedule.max_concurrent = 1'),
        }),
      },
    ]);
    expect(t.clock.inFlight).toBe(1);
  });
});
