/**
 * Cooperative time slicing for work that can wait a moment, so work that cannot is never stuck behind
 * it. The daemon passes every running run through one turnstile between two of its events: while the
 * current slice has budget left a run goes straight on; once it is spent, runs wait for the next turn
 * of the event loop (setImmediate), after the I/O that is ready — a new message, an approval, a cancel
 * — has been handled. Each waiting run goes on in its own immediate (Node drains promise jobs between
 * immediates), the first one of a turn opens a new slice, and a run that finds the slice spent again
 * queues at the back: round robin, and nobody starves.
 */
export class Turnstile {
  readonly #budgetMs: number;
  readonly #now: () => number;
  #sliceStart: number;
  /** Which turn of the event loop the current slice belongs to (see the marker in #defer). */
  #turn = 0;
  #sliceTurn = 0;
  #markerPending = false;
  #waiting = 0;

  constructor(budgetMs = 1, now: () => number = () => performance.now()) {
    this.#budgetMs = budgetMs;
    this.#now = now;
    this.#sliceStart = now();
  }

  /** Undefined (go on now) while the slice has budget and nobody waits; else a promise for a later turn. */
  pass(): Promise<void> | undefined {
    if (this.#waiting === 0 && this.#now() - this.#sliceStart < this.#budgetMs) return undefined;
    return new Promise<void>((resolve) => this.#defer(resolve));
  }

  /**
   * Always waits for a later turn, behind the I/O that is ready now and the runs already waiting. A
   * run that has just answered its request gives way at once, so the other requests that arrived
   * with it are answered before any run goes on.
   */
  yieldTurn(): Promise<void> {
    return new Promise<void>((resolve) => this.#defer(resolve));
  }

  #defer(resolve: () => void): void {
    if (!this.#markerPending) {
      // Immediates run in the order they were scheduled, so this marker runs before every waiter
      // scheduled after it in the same turn: it tells them a new turn has begun.
      this.#markerPending = true;
      setImmediate(() => {
        this.#markerPending = false;
        this.#turn++;
      });
    }
    this.#waiting++;
    setImmediate(() => {
      this.#waiting--;
      if (this.#sliceTurn !== this.#turn) {
        // The first waiter of a turn opens its slice, so every turn makes progress.
        this.#sliceTurn = this.#turn;
        this.#sliceStart = this.#now();
      } else if (this.#now() - this.#sliceStart >= this.#budgetMs) {
        this.#defer(resolve);
        return;
      }
      resolve();
    });
  }
}
