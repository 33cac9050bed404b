/** Helpers for the trigger tests: a Rein home with named agents, and a TriggerHost that records runs. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { DaemonEvent } from '../../../src-main/core/api/events.js';
import { toDisposable } from '../../../src-main/core/base/lifecycle.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import type { RunRequest } from '../../../src-main/core/runtime/runRequest.js';
import { EventBus } from '../../../src-main/core/service/eventBus.js';
import { RouteRun } from '../../../src-main/core/service/runs/routeRun.js';
import type { TriggerHost } from '../../../src-main/core/triggers/index.js';

export interface Dirs {
  root: string;
  home: string;
}

/** A fresh temp root (with `home` in it) per test, removed after it. */
export function tempDirs(prefix: string): Dirs {
  const d: Dirs = { root: '', home: '' };
  beforeEach(async () => {
    d.root = await mkdtemp(join(tmpdir(), prefix));
    d.home = join(d.root, 'home');
    await mkdir(d.home, { recursive: true });
  });
  afterEach(async () => {
    await rm(d.root, { recursive: true, force: true });
  });
  return d;
}

export async function writeAgent(
  home: string,
  name: string,
  files: { persona?: string; config?: string; heartbeat?: string } = {},
): Promise<string> {
  const dir = join(home, 'agents', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'AGENT.md'), files.persona ?? `You are ${name}.`);
  if (files.config !== undefined) await writeFile(join(dir, 'config.yaml'), files.config);
  if (files.heartbeat !== undefined) await writeFile(join(dir, 'HEARTBEAT.md'), files.heartbeat);
  return dir;
}

export interface RecordedRun {
  request: RunRequest;
  run: RouteRun;
  /** Ends the run with this answer. */
  finish(text?: string): void;
}

/** A host that never calls a model: each submit is recorded and ends when the test says so (or at once). */
export class FakeHost implements TriggerHost {
  readonly bus = new EventBus();
  readonly runs: RecordedRun[] = [];
  readonly published: DaemonEvent[] = [];
  readonly running: RouteRun[] = [];
  autoFinish = true;
  readonly #waiters: Array<() => void> = [];
  config = GlobalConfig.parse({});

  constructor(readonly home: string) {}

  get router() {
    return { running: this.running, queued: [] as RouteRun[] };
  }

  async submit(request: RunRequest) {
    const run = new RouteRun(`once:${this.runs.length}`, request, true);
    run.state = 'running';
    this.running.push(run);
    const finish = (text = 'done') => {
      if (run.state === 'done') return;
      run.state = 'done';
      this.running.splice(this.running.indexOf(run), 1);
      run.settle({
        injected: false,
        route: run.key,
        agent: request.agent,
        session_id: '2026-01-01-000000000000',
        text,
        stop_reason: 'final',
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_creation_tokens: 0,
          cost_usd: 0,
          requests: 1,
        },
        iterations: 1,
      });
    };
    this.runs.push({ request, run, finish });
    for (const w of this.#waiters.splice(0)) w();
    if (this.autoFinish) queueMicrotask(() => finish());
    return { injected: false as const, run };
  }

  publish(event: DaemonEvent): void {
    this.published.push(event);
    this.bus.publish(event);
  }

  subscribe(listener: Parameters<EventBus['subscribe']>[0]) {
    return toDisposable(this.bus.subscribe(listener));
  }

  /** Resolves once `n` runs have been submitted (or fails after `ms`). */
  async waitForRuns(n: number, ms = 10_000): Promise<RecordedRun[]> {
    const deadline = Date.now() + ms;
    while (this.runs.length < n) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `expected ${n} run(s), got ${this.runs.length}: ${JSON.stringify(this.runs.map((r) => r.request.text))}`,
        );
      await new Promise<void>((ok) => {
        const t = setTimeout(ok, Math.min(left, 200));
        this.#waiters.push(() => {
          clearTimeout(t);
          ok();
        });
      });
    }
    return this.runs.slice(0, n);
  }
}

export const sleep = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));
