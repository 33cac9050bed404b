import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseDailyWindow, type DailyWindow } from '../../../src-main/core/agents/index.js';
import {
  appendBeat,
  heartbeatLogFile,
  inActiveHours,
  localDay,
  nextBeatAt,
  readBeats,
  spentOn,
  type BeatRecord,
} from '../../../src-main/core/triggers/index.js';
import { tempDirs, writeAgent } from './support.js';

const dirs = tempDirs('rein-hb-sched-');
const win = (s: string): DailyWindow => {
  const p = parseDailyWindow(s);
  if (!p.ok) throw new Error(p.error);
  return p.value;
};
const at = (hh: number, mm: number, day = 15) => new Date(2026, 5, day, hh, mm, 0);

describe('active hours (local time)', () => {
  it('a day window: start inclusive, end exclusive', () => {
    const w = win('09:00-18:00');
    expect(inActiveHours(w, at(8, 59))).toBe(false);
    expect(inActiveHours(w, at(9, 0))).toBe(true);
    expect(inActiveHours(w, at(17, 59))).toBe(true);
    expect(inActiveHours(w, at(18, 0))).toBe(false);
  });

  it('an overnight window wraps midnight', () => {
    const w = win('22:00-06:00');
    expect(inActiveHours(w, at(21, 59))).toBe(false);
    expect(inActiveHours(w, at(22, 0))).toBe(true);
    expect(inActiveHours(w, at(23, 59))).toBe(true);
    expect(inActiveHours(w, at(0, 0))).toBe(true);
    expect(inActiveHours(w, at(5, 59))).toBe(true);
    expect(inActiveHours(w, at(6, 0))).toBe(false);
    expect(inActiveHours(w, at(12, 0))).toBe(false);
  });

  it('24:00 closes a window at midnight', () => {
    const w = win('20:00-24:00');
    expect(inActiveHours(w, at(23, 59))).toBe(true);
    expect(inActiveHours(w, at(0, 0))).toBe(false);
  });
});

describe('the next beat', () => {
  it('falls on the timer, one period after the last, inside the window', () => {
    const anchor = at(10, 0);
    expect(nextBeatAt(anchor, 30 * 60_000, undefined, at(10, 0))).toEqual(at(10, 30));
    expect(nextBeatAt(anchor, 30 * 60_000, undefined, at(10, 31))).toEqual(at(11, 0));
    // 17:45 → 18:00 is outside 09:00-18:00: the next one is 09:00 next day.
    expect(nextBeatAt(anchor, 30 * 60_000, win('09:00-18:00'), at(17, 45))).toEqual(at(9, 0, 16));
    // Overnight: at noon the next one is 22:00.
    expect(nextBeatAt(anchor, 60 * 60_000, win('22:00-06:00'), at(12, 5))).toEqual(at(22, 0));
  });
});

describe('the beat records', () => {
  const record = (over: Partial<BeatRecord>): BeatRecord => ({
    at: new Date().toISOString(),
    day: localDay(new Date()),
    agent: 'ops',
    trigger: 'timer',
    outcome: 'ok',
    input_tokens: 1,
    output_tokens: 1,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    total_input_tokens: 1,
    cache_read_share: 0,
    cost_usd: 0.25,
    requests: 1,
    ...over,
  });

  it('are appended, read back and summed per local day', async () => {
    await writeAgent(dirs.home, 'ops');
    await appendBeat(dirs.home, record({}));
    await appendBeat(dirs.home, record({ cost_usd: 0.5 }));
    await appendBeat(dirs.home, record({ day: '2000-01-01', cost_usd: 7 }));
    const all = await readBeats(dirs.home, 'ops');
    expect(all).toHaveLength(3);
    expect(spentOn(all, new Date())).toBeCloseTo(0.75);
    expect(await readBeats(dirs.home, 'nobody')).toEqual([]);
  });

  it('stay bounded: past 1 MB the file is cut back to its newest lines (at most 1,000)', async () => {
    await writeAgent(dirs.home, 'ops');
    const big = 'x'.repeat(1_500);
    for (let i = 0; i < 760; i++) await appendBeat(dirs.home, record({ message: `${i} ${big}` }));
    const kept = await readBeats(dirs.home, 'ops');
    expect(kept.length).toBeLessThanOrEqual(1_000);
    expect(kept[kept.length - 1]!.message!.startsWith('759 ')).toBe(true);
    expect(kept.length).toBeLessThan(760);
    expect((await stat(heartbeatLogFile(dirs.home, 'ops'))).size).toBeLessThanOrEqual(1_024 * 1_024);
  });
});
