import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  HeartbeatManager,
  heartbeatStateFile,
  readHeartbeatState,
  type BeatOptions,
  type BeatRecord,
} from '../../../src-main/core/triggers/index.js';
import { useLeakCheck } from '../../support/leaks.js';
import { FakeHost, tempDirs, writeAgent } from './support.js';

useLeakCheck();
const dirs = tempDirs('rein-hb-manager-');

interface Beat {
  agent: string;
  at: Date;
  opts: BeatOptions;
}

let beats: Beat[];
let managers: HeartbeatManager[];
const fakeBeat = async (agent: string, opts: BeatOptions): Promise<BeatRecord> => {
  beats.push({ agent, at: new Date(), opts });
  return {} as BeatRecord;
};

function manager(
  host: FakeHost,
  extra: Partial<ConstructorParameters<typeof HeartbeatManager>[1]> = {},
): HeartbeatManager {
  const m = new HeartbeatManager(host, { beat: fakeBeat, rescanMs: 0, ...extra });
  managers.push(m);
  return m;
}

const MIN = 60_000;

beforeEach(() => {
  beats = [];
  managers = [];
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(new Date(2026, 5, 15, 12, 0, 0));
});

afterEach(async () => {
  for (const m of managers) await m.dispose();
  vi.useRealTimers();
});

describe('heartbeat timers', () => {
  it('beat one period after start, then every period; agents without a heartbeat get none', async () => {
    await writeAgent(dirs.home, 'ops', { config: 'heartbeat:\n  every: 30m\n', heartbeat: 'Check CI.' });
    await writeAgent(dirs.home, 'quiet');
    const m = manager(new FakeHost(dirs.home));
    await m.start();
    expect(m.agents).toEqual(['ops']);
    expect(m.nextBeat('ops')).toEqual(new Date(2026, 5, 15, 12, 30));
    await vi.advanceTimersByTimeAsync(30 * MIN - 1);
    expect(beats).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(beats.map((b) => [b.agent, b.at.getHours(), b.at.getMinutes(), b.opts.trigger])).toEqual([
      ['ops', 12, 30, 'timer'],
    ]);
    await vi.advanceTimersByTimeAsync(60 * MIN);
    expect(beats).toHaveLength(3);
    await vi.waitFor(async () => expect((await readHeartbeatState(dirs.home, 'ops'))?.every_ms).toBe(30 * MIN));
  });

  it('ticks outside the active hours do nothing; overnight windows cross midnight', async () => {
    vi.setSystemTime(new Date(2026, 5, 15, 20, 30, 0));
    await writeAgent(dirs.home, 'night', {
      config: 'heartbeat:\n  every: 1h\n  active_hours: "22:00-06:00"\n',
      heartbeat: 'Watch the backups.',
    });
    const m = manager(new FakeHost(dirs.home));
    await m.start();
    expect(m.nextBeat('night')).toEqual(new Date(2026, 5, 15, 22, 30));
    await vi.advanceTimersByTimeAsync(12 * 60 * MIN);
    // Ticks at 21:30 … 08:30: only 22:30 to 05:30 are inside the window.
    expect(beats.map((b) => b.at.getHours())).toEqual([22, 23, 0, 1, 2, 3, 4, 5]);
  });

  it('follow agent_changed: a new period rebuilds the timer, a deleted agent loses it, an unchanged one keeps its phase', async () => {
    await writeAgent(dirs.home, 'ops', { config: 'heartbeat:\n  every: 10m\n', heartbeat: 'Check CI.' });
    await writeAgent(dirs.home, 'other', { config: 'heartbeat:\n  every: 10m\n', heartbeat: 'Check mail.' });
    const host = new FakeHost(dirs.home);
    const m = manager(host);
    await m.start();
    await vi.advanceTimersByTimeAsync(5 * MIN);
    await writeFile(join(dirs.home, 'agents', 'ops', 'config.yaml'), 'heartbeat:\n  every: 2m\n');
    host.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: 'ops', change: 'updated' });
    host.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: 'other', change: 'updated' });
    await m.refresh('other');
    await vi.advanceTimersByTimeAsync(5 * MIN);
    // ops: every 2 minutes from the change (12:07, 12:09); other: still on its 10-minute phase (12:10).
    expect(beats.map((b) => `${b.agent} ${b.at.getMinutes()}`)).toEqual(['ops 7', 'ops 9', 'other 10']);
    await rm(join(dirs.home, 'agents', 'other'), { recursive: true });
    host.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: 'other', change: 'deleted' });
    await m.refresh('other');
    expect(m.agents).toEqual(['ops']);
    beats = [];
    await vi.advanceTimersByTimeAsync(10 * MIN);
    expect(new Set(beats.map((b) => b.agent))).toEqual(new Set(['ops']));
  });

  it('a rescan picks up a heartbeat added by hand, and one taken out', async () => {
    await writeAgent(dirs.home, 'ops', { heartbeat: 'Check CI.' });
    const m = manager(new FakeHost(dirs.home), { rescanMs: MIN });
    await m.start();
    expect(m.agents).toEqual([]);
    await writeFile(join(dirs.home, 'agents', 'ops', 'config.yaml'), 'heartbeat:\n  every: 5m\n');
    await vi.advanceTimersByTimeAsync(MIN);
    await m.refresh();
    expect(m.agents).toEqual(['ops']);
    await writeFile(join(dirs.home, 'agents', 'ops', 'config.yaml'), '');
    await vi.advanceTimersByTimeAsync(MIN);
    await m.refresh();
    expect(m.agents).toEqual([]);
  });

  it('a broken config.yaml turns that heartbeat off with one warning', async () => {
    await writeAgent(dirs.home, 'ops', { config: 'heartbeat:\n  every: 10s\n', heartbeat: 'x' });
    const warnings: string[] = [];
    const m = manager(new FakeHost(dirs.home), { warn: (w) => warnings.push(w) });
    await m.start();
    await m.refresh();
    expect(m.agents).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/heartbeat of ops is off: .*config\.yaml:2:3: heartbeat\.every/s);
  });

  it('dispose stops every timer, stops a beat still running and waits for it, and removes its state', async () => {
    await writeAgent(dirs.home, 'ops', { config: 'heartbeat:\n  every: 1m\n', heartbeat: 'Check CI.' });
    let stopped = false;
    const slowBeat = (agent: string, opts: BeatOptions) =>
      new Promise<BeatRecord>((resolve) => {
        beats.push({ agent, at: new Date(), opts });
        opts.signal!.addEventListener('abort', () => {
          stopped = true;
          resolve({} as BeatRecord);
        });
      });
    const m = manager(new FakeHost(dirs.home), { beat: slowBeat });
    await m.start();
    await vi.advanceTimersByTimeAsync(MIN);
    expect(beats).toHaveLength(1);
    await vi.waitFor(() => expect(existsSync(heartbeatStateFile(dirs.home, 'ops'))).toBe(true));
    await m.dispose();
    expect(stopped).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(existsSync(heartbeatStateFile(dirs.home, 'ops'))).toBe(false);
    await vi.advanceTimersByTimeAsync(10 * MIN);
    expect(beats).toHaveLength(1);
  });
});
