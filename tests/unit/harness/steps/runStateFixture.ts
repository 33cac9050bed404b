/**
 * A run state for testing one step of the runner: a real session store in a temp folder, a real tool
 * registry and policy, and the scripted model of tests/unit/memory/fakeLlm.ts (no network).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReinEvent, ReinEventBody } from '../../../../src-main/core/api/events.js';
import type { LlmClient } from '../../../../src-main/core/llm/client.js';
import { ApprovalBroker } from '../../../../src-main/core/permissions/approvalBroker.js';
import { basicPolicy } from '../../../../src-main/core/permissions/basicPolicy.js';
import type { ApprovalFace } from '../../../../src-main/core/permissions/types.js';
import { SessionStore } from '../../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../../src-main/core/sessions/types.js';
import { ToolRegistry } from '../../../../src-main/core/tools/registry.js';
import { SessionReadTracker } from '../../../../src-main/core/tools/readTracker.js';
import type { Tool } from '../../../../src-main/core/tools/tool.js';
import type { Inbox } from '../../../../src-main/core/harness/inbox.js';
import type { RunDeps, RunInput, RunSettings } from '../../../../src-main/core/harness/runTypes.js';
import { createRunState, type RunState } from '../../../../src-main/core/harness/runState.js';
import { settings as defaultSettings } from '../../../support/harness.js';

export interface StepFixture {
  state: RunState;
  store: SessionStore;
  session: SessionFile;
  input: RunInput;
  /** How many times the run saved its session. */
  saves: () => number;
}

export async function stepFixture(
  llm: LlmClient,
  opts: {
    tools?: Tool[];
    settings?: Partial<RunSettings>;
    faces?: ApprovalFace[];
    signal?: AbortSignal;
    inbox?: Inbox;
    save?: (s: SessionFile) => Promise<void>;
    deps?: Partial<RunDeps>;
  } = {},
): Promise<StepFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-step-'));
  const store = new SessionStore(join(dir, 'sessions'));
  const session = store.create({ agent: 'default', cwd: dir, source: 'test' });
  let saves = 0;
  const settings = defaultSettings(opts.settings);
  const input: RunInput = {
    prompt: 'do the thing',
    session,
    save: async (s) => {
      saves++;
      await (opts.save ? opts.save(s) : store.save(s));
    },
    source: 'test',
    agent: 'default',
    origin: 'attended',
    route: 'test',
    model: settings.model,
    cwd: dir,
    settings,
    toolContext: {
      cwd: dir,
      sessionId: session.id,
      sessionDir: store.sideDir(session.id),
      reinHome: dir,
      agent: 'default',
      readTracker: new SessionReadTracker(),
      egress: async () => ({ allowed: true }),
    },
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.inbox ? { inbox: opts.inbox } : {}),
  };
  const deps: RunDeps = {
    llm,
    registry: new ToolRegistry(opts.tools ?? []),
    policy: basicPolicy(),
    broker: new ApprovalBroker(opts.faces ?? [], { timeoutMs: 2_000 }),
    ...opts.deps,
  };
  let seq = 0;
  const stamp = (body: ReinEventBody): ReinEvent =>
    ({ ...body, session_id: session.id, seq: seq++, at: new Date(0).toISOString() }) as ReinEvent;
  const state = createRunState(input, deps, stamp, {});
  return { state, store, session, input, saves: () => saves };
}

/** Drives a step to its end: the events it yielded and what it returned. */
export async function drive<T>(
  gen: AsyncGenerator<ReinEvent, T> | Generator<ReinEvent, T>,
): Promise<{ events: ReinEvent[]; value: T }> {
  const events: ReinEvent[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, value: step.value };
    events.push(step.value);
  }
}
