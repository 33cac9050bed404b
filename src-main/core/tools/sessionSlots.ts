/**
 * State a tool keeps between its calls in one session (the deferred-tool working set, accessibility
 * element refs): one slot per key in the tool context, made on first use and kept as long as the run's
 * tool context. State that must outlive the run is seeded by the loop from the session file and is
 * saved with it because the slot holds that very object.
 */
import type { ToolContext } from './tool.js';

/** Names a slot and the type of its state. Keys are compared by identity: two tools cannot collide by name. */
export interface SlotKey<T> {
  readonly name: string;
  /** Never set; it carries T so `slot` and `seed` agree on the state's type. */
  readonly __state?: T;
}

export const slotKey = <T>(name: string): SlotKey<T> => Object.freeze({ name });

export class SessionSlots {
  readonly #values = new Map<SlotKey<unknown>, unknown>();

  /** The state under `key`, made by `init` the first time it is asked for. */
  slot<T>(key: SlotKey<T>, init: () => T): T {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = init();
    this.#values.set(key, value);
    return value;
  }

  /** Puts state read from the session file under `key`, replacing what was there: the file is the truth for saved state. */
  seed<T>(key: SlotKey<T>, value: T): void {
    this.#values.set(key, value);
  }
}

/** The context's slots, made on first use (tool contexts built without them, by tests or embedders, still work). */
export const sessionSlots = (ctx: ToolContext): SessionSlots => (ctx.session ??= new SessionSlots());
