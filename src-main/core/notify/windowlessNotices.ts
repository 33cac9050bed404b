/**
 * What a Rein without a window tells the person through system notifications: heartbeat alerts,
 * schedules that finished with an answer or failed, approvals that an unattended or remote run waits
 * for, permission changes waiting for confirmation. A run's end is not among them: whoever started it
 * (a script, a chat client) has its answer. The words are the desktop app's (desktop/notifications.ts).
 */
import type { Disposable } from '../base/lifecycle.js';
import { DesktopActivity, type ActivityNote } from '../desktop/activity.js';
import { notificationFor, type NotificationContent } from '../desktop/notifications.js';
import type { BusListener } from '../service/eventBus.js';
import type { SystemNotice } from './systemNotifier.js';

export function windowlessNotice(note: ActivityNote): NotificationContent | undefined {
  if (note.kind === 'run_ended') return undefined;
  return notificationFor(note, { chatFocused: false });
}

/**
 * Follows a service's events and shows what deserves a notice. A notifier that fails is reported
 * once (then again only after it has worked in between), so a missing notification daemon does not
 * fill the log.
 */
export function watchWindowlessNotices(
  service: { subscribe(listener: BusListener): Disposable },
  show: (notice: SystemNotice) => Promise<void>,
  warn: (message: string) => void,
): Disposable {
  const activity = new DesktopActivity();
  let failing = false;
  return service.subscribe((entry) => {
    const note = activity.observe(entry.event);
    const content = note && windowlessNotice(note);
    if (!content) return;
    show({ title: content.title, body: content.body }).then(
      () => {
        failing = false;
      },
      (e: unknown) => {
        if (failing) return;
        failing = true;
        warn(`a notification could not be shown (${e instanceof Error ? e.message : String(e)}): ${content.title}`);
      },
    );
  });
}
