/**
 * A daemon without the app's window (`rein daemon`, the headless app) turns heartbeat alerts, schedule
 * outcomes and waiting approvals into system notifications; `daemon.notifications: false` turns them off.
 */
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import type { SystemNotice } from '../../../src-main/core/notify/systemNotifier.js';
import { eventually, http, startTestDaemon, type TestDaemon } from './support.js';

let fake: FakeAnthropic;
let d: TestDaemon | undefined;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.fallback = () => text('a reply');
});
afterEach(async () => {
  await d?.daemon.dispose();
  d = undefined;
  await fake.close();
});

const at = () => new Date().toISOString();

describe('daemon notifications', () => {
  it('shows alerts and schedule outcomes, not the end of a run its client started', async () => {
    const shown: SystemNotice[] = [];
    d = await startTestDaemon(fake, { daemon: { notifications: async (n) => void shown.push(n) } });
    const run = await http(d, 'POST', '/message', { body: { text: 'hello', source: 'slack', channel: 'A' } });
    expect(run.status).toBe(200);
    d.daemon.publish({ type: 'heartbeat_alert', at: at(), agent: 'ops', text: 'disk is 95% full' });
    d.daemon.publish({
      type: 'schedule_run',
      at: at(),
      schedule_id: '1a2b3c4d',
      agent: 'ops',
      status: 'failed',
      message: 'no API key',
    });
    await eventually(() => shown.length >= 2);
    expect(shown).toEqual([
      { title: 'ops: heartbeat alert', body: 'disk is 95% full' },
      { title: 'ops: schedule 1a2b3c4d failed', body: 'no API key' },
    ]);
  });

  it('daemon.notifications: false shows none', async () => {
    const shown: SystemNotice[] = [];
    d = await startTestDaemon(fake, {
      config: { daemon: { notifications: false } },
      daemon: { notifications: async (n) => void shown.push(n) },
    });
    d.daemon.publish({ type: 'heartbeat_alert', at: at(), agent: 'ops', text: 'disk is 95% full' });
    await new Promise((r) => setTimeout(r, 50));
    expect(shown).toEqual([]);
  });

  it("'system' runs the platform's notifier from the daemon's PATH with the words as arguments; without one it warns once", async () => {
    const bin = await mkdtemp(join(tmpdir(), 'rein-notify-bin-'));
    const log = join(bin, 'calls.txt');
    // A stand-in for notify-send (Linux) and osascript (macOS): it writes down its arguments.
    for (const name of ['notify-send', 'osascript']) {
      await writeFile(join(bin, name), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done >> '${log}'\n`);
      await chmod(join(bin, name), 0o755);
    }
    const env = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test-key', PATH: `${bin}:/usr/bin:/bin` };
    d = await startTestDaemon(fake, { daemon: { notifications: 'system', env } });
    d.daemon.publish({ type: 'heartbeat_alert', at: at(), agent: 'ops', text: 'CI is red on main' });
    await eventually(async () => (await readFile(log, 'utf8').catch(() => '')).includes('CI is red on main'));
    expect((await readFile(log, 'utf8')).trim().split('\n').slice(-2)).toEqual([
      'ops: heartbeat alert',
      'CI is red on main',
    ]);
    await d.daemon.dispose();

    if (process.platform !== 'linux') return; // macOS always has osascript
    const warnings: string[] = [];
    d = await startTestDaemon(fake, {
      daemon: { notifications: 'system', env: { ...env, PATH: '/nonexistent' }, warn: (m) => warnings.push(m) },
    });
    d.daemon.publish({ type: 'heartbeat_alert', at: at(), agent: 'ops', text: 'one' });
    d.daemon.publish({ type: 'heartbeat_alert', at: at(), agent: 'ops', text: 'two' });
    await eventually(() => warnings.some((w) => w.includes('notify-send is not installed')));
    await new Promise((r) => setTimeout(r, 50));
    expect(warnings.filter((w) => w.includes('notification'))).toHaveLength(1);
  });
});
