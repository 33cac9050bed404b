/**
 * System notifications from the main process (the page has no notification permission). Each one is
 * kept referenced until it is clicked or closed: on macOS a notification that is garbage-collected
 * loses its click handler.
 *
 * A notification can go nowhere: the system has none (`isSupported()` false), or it reports `failed`
 * (Windows, some Linux servers). Then `onUndelivered` is told — the app logs it and puts it on the tray
 * icon (its badge and tooltip), so what it said still reaches the person. (An unsigned macOS build's
 * notifications may be dropped silently, without an event; the tray shows approvals and failures anyway.)
 */
import { Notification } from 'electron';
import type { NotificationContent } from '../core/desktop/notifications.js';

export class Notifier {
  readonly #live = new Set<Notification>();

  constructor(
    private readonly enabled: () => boolean,
    private readonly onClick: (content: NotificationContent) => void,
    private readonly onUndelivered: (content: NotificationContent, reason: string) => void = () => undefined,
  ) {}

  /** `force` shows it even with notifications turned off (for problems with a setting the person chose). */
  show(content: NotificationContent, opts: { force?: boolean } = {}): boolean {
    if (!this.enabled() && !opts.force) return false;
    if (!Notification.isSupported()) {
      this.onUndelivered(content, 'this system shows no notifications');
      return false;
    }
    const n = new Notification({ title: content.title, body: content.body });
    this.#live.add(n);
    const forget = () => this.#live.delete(n);
    n.on('click', () => {
      forget();
      this.onClick(content);
    });
    n.on('close', forget);
    n.on('failed', (_event: unknown, error: unknown) => {
      forget();
      this.onUndelivered(content, typeof error === 'string' && error !== '' ? error : 'the system refused it');
    });
    n.show();
    return true;
  }

  dispose(): void {
    for (const n of this.#live) n.close();
    this.#live.clear();
  }
}
