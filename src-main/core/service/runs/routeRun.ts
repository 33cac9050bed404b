/**
 * One run in its lane, from the moment it is taken (queued or started) to its result: its inbox for
 * messages that arrive while it runs, its cancel switch, the listeners of the request that started it,
 * and the promise of its result.
 */
import type { MessageResult } from '../../api/protocol.js';
import type { GlobalConfig } from '../../config/schema.js';
import { Inbox } from '../../harness/inbox.js';
import type { RunRequest } from '../../runtime/runRequest.js';
import type { BusEntry } from '../eventBus.js';

export type RunListener = (entry: BusEntry) => void;

export class RouteRun {
  readonly inbox = new Inbox();
  readonly controller = new AbortController();
  state: 'queued' | 'running' | 'done' = 'queued';
  sessionId: string | undefined;
  startedAt: string | undefined;
  /** The global config the run started with, as the files said when its session was opened (service/liveConfig.ts). */
  config: GlobalConfig | undefined;
  readonly #listeners = new Set<RunListener>();
  readonly done: Promise<MessageResult>;
  settle!: (r: MessageResult) => void;
  fail!: (e: unknown) => void;

  constructor(
    readonly key: string,
    readonly request: RunRequest,
    readonly ephemeral: boolean,
  ) {
    this.done = new Promise<MessageResult>((ok, bad) => {
      this.settle = ok;
      this.fail = bad;
    });
    // The caller awaits `done`; background runs (chained follow-ups) may have nobody awaiting.
    this.done.catch(() => undefined);
  }

  get agent(): string {
    return this.request.agent;
  }

  get source(): string {
    return this.request.source;
  }

  listen(l: RunListener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  emit(entry: BusEntry): void {
    for (const l of this.#listeners) {
      try {
        l(entry);
      } catch {
        // A listener's own failure (a closed socket) is its own business.
      }
    }
  }
}
