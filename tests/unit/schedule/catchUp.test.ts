/**
 * `catch_up` (schedule/catchUp.ts): what a time missed while the Mac was off or asleep gets — once (the
 * default), skip, or within <duration> — decided alike for launchd's wake and login starts and the
 * daemon's clock; stored, validated and refused naming the field and the file.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  catchUpDecision,
  checkCatchUp,
  latestMissedFireTime,
  parseCatchUp,
} from '../../../src-main/core/schedule/catchUp.js';
import { ScheduleStore, type Schedule } from '../../../src-main/core/schedule/store.js';
import { ScheduleClock } from '../../../src-main/core/triggers/scheduleClock.js';

const missed = new Date(2026, 0, 5, 9, 0);
const hoursLater = (h: number) => new Date(missed.getTime() + h * 3_600_000);

describe('catchUpDecision', () => {
  it('once (and no setting): one catch-up run, however long ago', () => {
    for (const setting of [undefined, 'once']) {
      const d = catchUpDecision(setting, missed, hoursLater(30));
      expect(d).toMatchObject({ run: true, note: expect.stringContaining('missed') });
    }
  });

  it('skip: never', () => {
    expect(catchUpDecision('skip', missed, hoursLater(0.1))).toMatchObject({
      run: false,
      why: expect.stringContaining('catch_up: skip'),
    });
  });

  it('within 2h: only while the missed time is at most 2 h ago', () => {
    expect(catchUpDecision('within 2h', missed, hoursLater(1.5))).toMatchObject({
      run: true,
      note: expect.stringContaining('within 2h'),
    });
    expect(catchUpDecision('within 2h', missed, hoursLater(2))).toMatchObject({ run: true });
    expect(catchUpDecision('within 2h', missed, hoursLater(2.1))).toMatchObject({
      run: false,
      why: expect.stringContaining('within 2h'),
    });
    expect(catchUpDecision('within 1h30m', missed, hoursLater(1.6))).toMatchObject({ run: false });
  });
});

describe('parseCatchUp / checkCatchUp', () => {
  it('reads once, skip and within <duration>, in any case, normalised', () => {
    expect(checkCatchUp(' ONCE ')).toBe('once');
    expect(checkCatchUp('Skip')).toBe('skip');
    expect(checkCatchUp('within  2h')).toBe('within 2h');
    expect(parseCatchUp('within 1h30m')).toMatchObject({ ok: true, value: { kind: 'within', ms: 5_400_000 } });
  });

  it('refuses anything else naming the field catch_up', () => {
    for (const bad of ['always', 'within', 'within 2', 'within two hours', 'within 30s', '2h', '']) {
      expect(() => checkCatchUp(bad), bad).toThrow(
        expect.objectContaining({
          code: 'invalid_input',
          details: { field: 'catch_up' },
          message: expect.stringContaining('catch_up:'),
        }),
      );
    }
  });
});

describe('latestMissedFireTime', () => {
  const hourly = {
    cron: '0 * * * *',
    created_at: new Date(2026, 0, 5, 0, 30).toISOString(),
    updated_at: new Date(2026, 0, 5, 0, 30).toISOString(),
  };
  it('is the latest time that passed since the last run or change, not the first', () => {
    expect(latestMissedFireTime(hourly, new Date(2026, 0, 5, 9, 20), 60_000)).toEqual(new Date(2026, 0, 5, 9, 0));
    expect(
      latestMissedFireTime(
        { ...hourly, last_run: { at: new Date(2026, 0, 5, 9, 0, 1).toISOString() } },
        new Date(2026, 0, 5, 9, 20),
        60_000,
      ),
    ).toBeUndefined();
    // Within the grace minute a due time is not missed yet.
    expect(latestMissedFireTime(hourly, new Date(2026, 0, 5, 1, 0, 30), 60_000)).toBeUndefined();
  });
});

describe('the store', () => {
  const home = () => mkdtemp(join(tmpdir(), 'rein-catchup-'));

  it('keeps catch_up as given (normalised) on create and update; absent means once', async () => {
    const store = new ScheduleStore(await home());
    const a = await store.create({ cron: '@daily', prompt: 'x' });
    expect(a.catch_up).toBeUndefined();
    const b = await store.create({ cron: '@daily', prompt: 'y', catch_up: 'Within 2h' });
    expect(b.catch_up).toBe('within 2h');
    expect((await store.update(b.id, { catch_up: 'skip' })).catch_up).toBe('skip');
    expect(JSON.parse(await readFile(store.file, 'utf8')).schedules[1].catch_up).toBe('skip');
  });

  it('refuses a bad value naming the field and changes nothing', async () => {
    const store = new ScheduleStore(await home());
    await expect(store.create({ cron: '@daily', prompt: 'x', catch_up: 'sometimes' })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { field: 'catch_up' },
    });
    const s = await store.create({ cron: '@daily', prompt: 'x' });
    await expect(store.update(s.id, { catch_up: 'within forever' })).rejects.toMatchObject({
      details: { field: 'catch_up' },
    });
    expect((await store.get(s.id)).catch_up).toBeUndefined();
  });

  it('a hand-edited file with a bad catch_up is refused naming the file and the field', async () => {
    const store = new ScheduleStore(await home());
    await store.create({ cron: '@daily', prompt: 'x' });
    const file = JSON.parse(await readFile(store.file, 'utf8'));
    file.schedules[0].catch_up = 'at wake';
    await writeFile(store.file, JSON.stringify(file));
    const err = await store.list().catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'config_invalid',
      details: { file: store.file, field: expect.stringContaining('catch_up') },
    });
    expect((err as Error).message).toContain(store.file);
  });
});

describe('the daemon clock honours catch_up after a jump (the machine slept over 09:00, woke at 11:30)', () => {
  async function wakeAt(hours: number, catchUp?: string) {
    const h = await mkdtemp(join(tmpdir(), 'rein-catchup-clock-'));
    let now = new Date(2026, 0, 5, 8, 59, 30).getTime();
    const store = new ScheduleStore(h, { now: () => new Date(now - 86_400_000) });
    const runs: Array<{ id: string; note?: string }> = [];
    const warnings: string[] = [];
    const clock = new ScheduleClock({
      store,
      maxConcurrent: 5,
      now: () => now,
      setTimer: () => ({ cancel: () => undefined }),
      run: async (s: Schedule, _t, note) => void runs.push({ id: s.id, ...(note ? { note } : {}) }),
      skipped: async () => undefined,
      warn: (m) => void warnings.push(m),
    });
    await store.create({ cron: '0 9 * * *', prompt: 'report', ...(catchUp ? { catch_up: catchUp } : {}) });
    await clock.look();
    now = new Date(2026, 0, 5, 9 + hours, 0, 0).getTime();
    await clock.look();
    // A minute later nothing more: one decision per jump.
    now += 60_000;
    await clock.look();
    return { runs, warnings };
  }

  it('once: runs once, saying why', async () => {
    const { runs } = await wakeAt(2.5);
    expect(runs).toEqual([{ id: expect.any(String), note: expect.stringContaining('catching up') }]);
  });

  it('skip: no run, and the daemon log says why', async () => {
    const { runs, warnings } = await wakeAt(2.5, 'skip');
    expect(runs).toEqual([]);
    expect(warnings.join('\n')).toContain('catch_up: skip');
  });

  it('within 2h: runs an hour after the missed time, not three hours after', async () => {
    expect((await wakeAt(1, 'within 2h')).runs).toHaveLength(1);
    expect((await wakeAt(3, 'within 2h')).runs).toEqual([]);
  });
});
