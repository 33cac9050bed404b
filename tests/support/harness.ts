/**
 * Builds a loop run for tests: real SDK client against the fake Messages API, a real session store in a
 * temp folder, and whatever tools / policy / approval faces the test brings.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ReinEvent } from '../../src-main/core/api/events.js';
import { AnthropicLlm } from '../../src-main/core/llm/client.js';
import { ApprovalBroker } from '../../src-main/core/permissions/approvalBroker.js';
import { basicPolicy } from '../../src-main/core/permissions/basicPolicy.js';
import type { ApprovalFace, PermissionPolicy } from '../../src-main/core/permissions/types.js';
import { ToolRegistry } from '../../src-main/core/tools/registry.js';
import { SessionReadTracker } from '../../src-main/core/tools/readTracker.js';
import { okResult, type Tool } from '../../src-main/core/tools/tool.js';
import { SessionStore } from '../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../src-main/core/sessions/types.js';
import { runAgent, type RunDeps, type RunOutcome, type RunSettings } from '../../src-main/core/harness/loop.js';
import { Inbox } from '../../src-main/core/harness/inbox.js';
import type { FakeAnthropic } from './fakeAnthropic.js';

export const settings = (over: Partial<RunSettings> = {}): RunSettings =>
  ({
    model: 'claude-sonnet-5-5',
    maxTokens: 1024,
    maxIterations: 25,
    maxUsdPerRun: 0,
    maxParallel: 10,
    resultBudget: 30_000,
    mode: 'default',
    contextWindow: 200_000,
    ...over,
  }) as RunSettings;

export const face = (
  decision: 'allow' | 'deny' | 'always_allow' | 'allow_session',
  log: string[] = [],
): ApprovalFace => ({
  name: 'test',
  ask: async (req) => {
    log.push(`${req.tool}:${req.summary}`);
    return { decision, by: 'test' };
  },
});

export interface HarnessRun {
  events: ReinEvent[];
  outcome: RunOutcome;
  session: SessionFile;
  store: SessionStore;
  dir: string;
}

export async function runWith(
  fake: FakeAnthropic,
  opts: {
    prompt?: string;
    tools?: Tool[];
    policy?: PermissionPolicy;
    faces?: ApprovalFace[];
    settings?: Partial<RunSettings>;
    session?: SessionFile;
    store?: SessionStore;
    signal?: AbortSignal;
    inbox?: Inbox;
    onEvent?: (e: ReinEvent) => void;
    deps?: Partial<RunDeps>;
    memoryDir?: string;
    /** REIN_HOME of the run's tool context (default: a new temp folder); session grants are signed with its key. */
    reinHome?: string;
    /** The run's working folder (default: the new temp folder). */
    cwd?: string;
  } = {},
): Promise<HarnessRun> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-loop-'));
  const store = opts.store ?? new SessionStore(join(dir, 'sessions'));
  const session = opts.session ?? store.create({ agent: 'default', cwd: dir, source: 'test' });
  const llm = new AnthropicLlm({ apiKey: 'k', baseURL: fake.url, baseDelayMs: 1 });
  const events: ReinEvent[] = [];
  const gen = runAgent(
    {
      prompt: opts.prompt ?? 'do the thing',
      session,
      save: (s) => store.save(s),
      source: 'test',
      agent: 'default',
      origin: 'attended',
      route: 'test',
      model: settings(opts.settings).model,
      cwd: opts.cwd ?? dir,
      settings: settings(opts.settings),
      toolContext: {
        cwd: opts.cwd ?? dir,
        sessionId: session.id,
        sessionDir: store.sideDir(session.id),
        reinHome: opts.reinHome ?? dir,
        agent: 'default',
        readTracker: new SessionReadTracker(),
        egress: async () => ({ allowed: true }),
      },
      signal: opts.signal ?? new AbortController().signal,
      ...(opts.memoryDir ? { memoryDir: opts.memoryDir } : {}),
      ...(opts.inbox ? { inbox: opts.inbox } : {}),
    },
    {
      llm,
      registry: new ToolRegistry(opts.tools ?? []),
      policy: opts.policy ?? basicPolicy(),
      broker: new ApprovalBroker(opts.faces ?? [], { timeoutMs: 2_000 }),
      ...opts.deps,
    },
  );
  for (;;) {
    const s = await gen.next();
    if (s.done) return { events, outcome: s.value, session, store, dir };
    events.push(s.value);
    opts.onEvent?.(s.value);
  }
}

/** A test tool whose behaviour the test supplies. */
export function testTool(
  name: string,
  opts: {
    readOnly?: boolean;
    gui?: boolean;
    budget?: number;
    input?: z.ZodType;
    run?: (input: any, signal: AbortSignal) => Promise<string> | string;
  } = {},
): Tool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name,
    description: `test tool ${name}`,
    source: 'local',
    input: opts.input ?? z.object({ arg: z.string().optional() }),
    isReadOnly: () => opts.readOnly ?? true,
    isDestructive: () => false,
    ...(opts.gui ? { traits: { drivesGui: true } } : {}),
    ...(opts.budget ? { resultBudget: opts.budget } : {}),
    calls,
    async call(input, _ctx, signal) {
      calls.push(input);
      return okResult(opts.run ? await opts.run(input, signal) : `${name} ran with ${JSON.stringify(input)}`);
    },
  };
}

/** The tool_result blocks of the last request the model received. */
export function lastToolResults(fake: FakeAnthropic, requestIndex = fake.requests.length - 1) {
  const msgs = fake.requests[requestIndex]!.body.messages;
  const last = msgs[msgs.length - 1]!;
  return (Array.isArray(last.content) ? last.content : []).filter((b: any) => b.type === 'tool_result') as Array<{
    tool_use_id: string;
    content: unknown;
    is_error?: boolean;
  }>;
}
