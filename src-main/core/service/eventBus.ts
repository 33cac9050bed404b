/**
 * The daemon's publish/subscribe bus: every run's events plus the daemon's own (queueing, approvals,
 * agent edits). It keeps the last `capacity` events so a client that reconnects with `Last-Event-ID`
 * gets what it missed. Ids are `<boot>-<n>`: the boot part changes with every daemon start, so an id
 * from an earlier daemon is recognised as foreign (and the whole buffer is replayed) instead of being
 * compared with numbers that started over.
 */
import { randomBytes } from 'node:crypto';
import type { RoutedEvent } from '../api/protocol.js';

export const BUS_REPLAY_CAPACITY = 500;

export interface BusEntry {
  id: string;
  event: RoutedEvent;
  /** JSON of `event`, made once and shared by every subscriber. */
  json: string;
}

export type BusListener = (entry: BusEntry) => void;

export class EventBus {
  readonly #boot = randomBytes(3).toString('hex');
  readonly #capacity: number;
  readonly #ring: BusEntry[] = [];
  #next = 1;
  readonly #listeners = new Set<BusListener>();

  constructor(capacity = BUS_REPLAY_CAPACITY) {
    this.#capacity = capacity;
  }

  publish(event: RoutedEvent): BusEntry {
    const entry: BusEntry = { id: `${this.#boot}-${this.#next++}`, event, json: JSON.stringify(event) };
    this.#ring.push(entry);
    if (this.#ring.length > this.#capacity) this.#ring.shift();
    for (const l of this.#listeners) {
      try {
        l(entry);
      } catch {
        // One broken subscriber must not stop the others (adapters close their own connection).
      }
    }
    return entry;
  }

  subscribe(listener: BusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.#listeners.size;
  }

  /** Events after `lastId`; everything kept when the id is unknown, foreign or already dropped. */
  since(lastId: string | undefined): BusEntry[] {
    if (lastId === undefined) return [];
    const n = this.#sequenceOf(lastId);
    if (n === undefined) return [...this.#ring];
    const oldest = this.#ring[0] ? this.#sequenceOf(this.#ring[0].id)! : this.#next;
    if (n < oldest - 1) return [...this.#ring];
    return this.#ring.filter((e) => this.#sequenceOf(e.id)! > n);
  }

  #sequenceOf(id: string): number | undefined {
    const dash = id.lastIndexOf('-');
    if (dash < 0 || id.slice(0, dash) !== this.#boot) return undefined;
    const n = Number(id.slice(dash + 1));
    return Number.isInteger(n) && n > 0 ? n : undefined;
  }
}
