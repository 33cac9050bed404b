/** A watched folder Rein may not read becomes one system notification per watch per process, with what to do. */
import { describe, expect, it } from 'vitest';
import type { DaemonEvent } from '../../../src-main/core/api/events.js';
import { toDisposable } from '../../../src-main/core/base/lifecycle.js';
import { DesktopActivity } from '../../../src-main/core/desktop/activity.js';
import { notificationFor } from '../../../src-main/core/desktop/notifications.js';
import type { SystemNotice } from '../../../src-main/core/notify/systemNotifier.js';
import { watchWindowlessNotices } from '../../../src-main/core/notify/windowlessNotices.js';
import { EventBus } from '../../../src-main/core/service/eventBus.js';
import { unreadableHint } from '../../../src-main/core/util/folderAccess.js';

const at = new Date().toISOString();
const unreadable = (agent: string, path: string): DaemonEvent => ({
  type: 'watch_status',
  at,
  agent,
  path,
  state: 'unreadable',
  reason: `${path} cannot be read (EPERM: operation not permitted)`,
  hint: unreadableHint('darwin'),
});

describe('an unreadable watched folder, as a notification', () => {
  it('names the agent and the folder, says why and what to do; always, even with the chat in front', () => {
    const note = new DesktopActivity().observe(unreadable('clerk', '/Users/me/Downloads'));
    expect(note).toEqual({
      kind: 'watch_unreadable',
      agent: 'clerk',
      path: '/Users/me/Downloads',
      reason: '/Users/me/Downloads cannot be read (EPERM: operation not permitted)',
      hint: unreadableHint('darwin'),
    });
    const content = notificationFor(note!, { chatFocused: true });
    expect(content?.title).toBe('clerk: cannot watch /Users/me/Downloads');
    expect(content?.body).toContain('cannot be read (EPERM: operation not permitted)');
    expect(content?.body).toContain('System Settings › Privacy & Security');
  });

  it('is shown once per watch per process: a flap or a repeat does not notify again; another folder does', async () => {
    const bus = new EventBus();
    const shown: SystemNotice[] = [];
    const sub = watchWindowlessNotices(
      { subscribe: (l) => toDisposable(bus.subscribe(l)) },
      async (n) => void shown.push(n),
      () => undefined,
    );
    bus.publish(unreadable('clerk', '/Users/me/Downloads'));
    bus.publish({ type: 'watch_status', at, agent: 'clerk', path: '/Users/me/Downloads', state: 'watching' });
    bus.publish(unreadable('clerk', '/Users/me/Downloads'));
    bus.publish({ type: 'watch_status', at, agent: 'clerk', path: '/Users/me/Gone', state: 'missing', reason: 'gone' });
    bus.publish(unreadable('sorter', '/Users/me/Downloads'));
    bus.publish(unreadable('clerk', '/Users/me/Documents'));
    await new Promise((ok) => setImmediate(ok));
    sub.dispose();
    expect(shown.map((n) => n.title)).toEqual([
      'clerk: cannot watch /Users/me/Downloads',
      'sorter: cannot watch /Users/me/Downloads',
      'clerk: cannot watch /Users/me/Documents',
    ]);
  });
});
