/** What a Rein without a window notifies: alerts, schedules, waiting approvals — not a run's end. */
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../src-main/core/service/eventBus.js';
import { toDisposable } from '../../../src-main/core/base/lifecycle.js';
import { watchWindowlessNotices } from '../../../src-main/core/notify/windowlessNotices.js';
import type { SystemNotice } from '../../../src-main/core/notify/systemNotifier.js';

const at = new Date().toISOString();

function setup(show: (n: SystemNotice) => Promise<void>) {
  const bus = new EventBus();
  const warnings: string[] = [];
  const sub = watchWindowlessNotices({ subscribe: (l) => toDisposable(bus.subscribe(l)) }, show, (m) =>
    warnings.push(m),
  );
  return { bus, warnings, sub };
}

describe('watchWindowlessNotices', () => {
  it('notifies heartbeat alerts, finished and failed schedules and waiting unattended approvals; not run ends', async () => {
    const shown: SystemNotice[] = [];
    const { bus, sub } = setup(async (n) => void shown.push(n));
    bus.publish({
      type: 'session_start',
      session_id: 's1',
      agent: 'ops',
      source: 'schedule',
      origin: 'unattended',
    } as never);
    bus.publish({ type: 'session_end', session_id: 's1', stop_reason: 'final', text: 'all good' } as never);
    bus.publish({ type: 'heartbeat_alert', at, agent: 'ops', text: 'CI is red on main' });
    bus.publish({ type: 'schedule_run', at, schedule_id: '1a2b3c4d', agent: 'ops', status: 'started' });
    bus.publish({
      type: 'schedule_run',
      at,
      schedule_id: '1a2b3c4d',
      agent: 'ops',
      status: 'failed',
      message: 'the model refused: 401',
    });
    bus.publish({
      type: 'schedule_run',
      at,
      schedule_id: '1a2b3c4d',
      agent: 'ops',
      status: 'finished',
      message: 'Two PRs wait for review.',
    });
    bus.publish({
      type: 'approval_request',
      session_id: 's2',
      request_id: 'r1',
      agent: 'ops',
      tool: 'bash',
      summary: 'git push origin main',
      risk: 'high',
      origin: 'unattended',
      source: 'schedule',
    } as never);
    await new Promise((r) => setTimeout(r, 5));
    expect(shown).toEqual([
      { title: 'ops: heartbeat alert', body: 'CI is red on main' },
      { title: 'ops: schedule 1a2b3c4d failed', body: 'the model refused: 401' },
      { title: 'ops: schedule 1a2b3c4d finished', body: 'Two PRs wait for review.' },
      { title: 'ops asks to use bash (high risk)', body: 'git push origin main' },
    ]);
    sub.dispose();
    bus.publish({ type: 'heartbeat_alert', at, agent: 'ops', text: 'after dispose' });
    await new Promise((r) => setTimeout(r, 5));
    expect(shown).toHaveLength(4);
  });

  it('a notifier that keeps failing is reported once, and again only after it worked in between', async () => {
    let fail = true;
    const { bus, warnings } = setup(async () => {
      if (fail) throw new Error('notify-send is not installed');
    });
    const alert = (text: string) => bus.publish({ type: 'heartbeat_alert', at, agent: 'ops', text });
    alert('one');
    alert('two');
    await new Promise((r) => setTimeout(r, 5));
    expect(warnings).toEqual([
      'a notification could not be shown (notify-send is not installed): ops: heartbeat alert',
    ]);
    fail = false;
    alert('three');
    await new Promise((r) => setTimeout(r, 5));
    fail = true;
    alert('four');
    await new Promise((r) => setTimeout(r, 5));
    expect(warnings).toHaveLength(2);
  });
});
