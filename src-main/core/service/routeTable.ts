/**
 * Remembers each route's current session across daemon restarts (`<REIN_HOME>/daemon-routes.json`),
 * so the next message from the same Slack thread continues its conversation after an update or a
 * reboot. It is a cache: an unreadable file is reported and replaced, never fatal. Writes are
 * coalesced: at most one in flight and one waiting, each writing the latest state atomically.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';

export const ROUTES_FILE = 'daemon-routes.json';
/** Oldest routes are forgotten beyond this many. */
const MAX_ROUTES = 10_000;

const RoutesFile = z.object({
  version: z.literal(1),
  routes: z.record(z.string(), z.object({ agent: z.string(), session_id: z.string(), updated_at: z.string() })),
});
type RouteRecord = z.infer<typeof RoutesFile>['routes'][string];

export class RouteTable {
  readonly file: string;
  readonly #routes = new Map<string, RouteRecord>();
  #writing: Promise<void> | undefined;
  #dirty = false;
  readonly #warn: (message: string) => void;

  constructor(home: string, warn: (message: string) => void = () => undefined) {
    this.file = join(home, ROUTES_FILE);
    this.#warn = warn;
  }

  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      this.#warn(`${this.file}: cannot read (${errorMessage(e)}); routes start empty`);
      return;
    }
    let parsed;
    try {
      parsed = RoutesFile.safeParse(JSON.parse(text));
    } catch (e) {
      this.#warn(`${this.file}: not valid JSON (${errorMessage(e)}); routes start empty`);
      return;
    }
    if (!parsed.success) {
      this.#warn(`${this.file}: not a routes file; routes start empty`);
      return;
    }
    for (const [k, v] of Object.entries(parsed.data.routes)) this.#routes.set(k, v);
  }

  get(key: string): RouteRecord | undefined {
    return this.#routes.get(key);
  }

  set(key: string, agent: string, sessionId: string): void {
    const prev = this.#routes.get(key);
    if (prev && prev.session_id === sessionId && prev.agent === agent) return;
    this.#routes.delete(key); // re-insert: the map's order is the age order
    this.#routes.set(key, { agent, session_id: sessionId, updated_at: new Date().toISOString() });
    while (this.#routes.size > MAX_ROUTES) this.#routes.delete(this.#routes.keys().next().value!);
    this.#schedule();
  }

  /** Forgets every route of an agent (the agent was deleted). */
  forgetAgent(agent: string): void {
    let changed = false;
    for (const [k, v] of this.#routes) {
      if (v.agent === agent) {
        this.#routes.delete(k);
        changed = true;
      }
    }
    if (changed) this.#schedule();
  }

  /** Resolves when everything set so far is on disk. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  #schedule(): void {
    this.#dirty = true;
    if (this.#writing) return;
    this.#writing = (async () => {
      while (this.#dirty) {
        this.#dirty = false;
        const body = { version: 1 as const, routes: Object.fromEntries(this.#routes) };
        try {
          await atomicWriteFile(this.file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
        } catch (e) {
          this.#warn(`${this.file}: cannot write (${errorMessage(e)})`);
        }
      }
    })().finally(() => {
      this.#writing = undefined;
    });
  }
}
