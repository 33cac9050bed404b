/**
 * The text of sessions this process wrote last, with the stamp of the file it wrote. A route's next
 * message continues the session its last run saved; with this the load is a `stat` and a JSON.parse
 * instead of a read queued behind other runs' fsyncs. Any other writer (a CLI run, a restored backup)
 * changes the stamp, and the load reads the file as usual. Bounded by total characters, oldest out.
 */
import { stampOf } from '../util/stampCache.js';

export class SessionCache {
  readonly #entries = new Map<string, { stamp: string; text: string }>();
  readonly #maxChars: number;
  #chars = 0;

  constructor(maxChars = 32 * 1024 * 1024) {
    this.#maxChars = maxChars;
  }

  /** Called right after the file was written with `text`. */
  remember(file: string, text: string): void {
    this.forget(file);
    if (text.length > this.#maxChars / 4) return;
    this.#entries.set(file, { stamp: stampOf([file]), text });
    this.#chars += text.length;
    for (const [k, v] of this.#entries) {
      if (this.#chars <= this.#maxChars) break;
      this.#entries.delete(k);
      this.#chars -= v.text.length;
    }
  }

  /** The text last written to `file`, if the file on disk is still that write. */
  recall(file: string): string | undefined {
    const hit = this.#entries.get(file);
    if (!hit) return undefined;
    if (stampOf([file]) !== hit.stamp) {
      this.forget(file);
      return undefined;
    }
    this.#entries.delete(file);
    this.#entries.set(file, hit);
    return hit.text;
  }

  forget(file: string): void {
    const old = this.#entries.get(file);
    if (!old) return;
    this.#entries.delete(file);
    this.#chars -= old.text.length;
  }
}
