/**
 * System notifications from the main process (the page has no notification permission). Each one is
 * kept referenced until it is clicked or closed: on macOS a notification that is garbage-collected
 * loses its click handler.
 */
import { Notification } from 'electron';
import type { NotificationContent } from '../core/desktop/notifications.js';

export class Notifier {
  readonly #live = new Set<Notification>();

  constructor(
    private readonly enabled: () => boolean,
    private readonly onClick: (content: NotificationContent) => void,
  ) {}

  /** `force` shows it even with notifications turned off (for problems with a setting the person chose). */
  show(content: NotificationContent, opts: { force?: boolean } = {}): boolean {
    if ((!this.enabled() && !opts.force) || !Notification.isSupported()) return false;
    const n = new Notification({ title: content.title, body: content.body });
    this.#live.add(n);
    const forget = () => this.#live.delete(n);
    n.on('click', () => {
      forget();
      this.onClick(content);
    });
    n.on('close', forget);
    n.show();
    return true;
  }

  dispose(): void {
    for (const n of this.#live) n.close();
    this.#live.clear();
  }
}
