/**
 * `npm run bench -- context`: the 200-iteration session of the context tests (20 KB tool outputs, a
 * 40,000-token window) against the fake Messages API, whose cache accounting imitates the provider's.
 * Prints input tokens sent, the share served from the cache, and the same session with housekeeping
 * and compaction off (the naive run) as a ratio. Targets: ≥ 80% cacheable, ≤ 0.3× the naive tokens.
 * With the defaults a 20 KB output is above a tenth of that window and reaches the model as a preview
 * (the whole saved beside the session); the same session with each output whole in the context
 * (`resultWindowShare: 0`) is printed too.
 *
 * Then the prefix stability of the startup benchmark's 20-call session (`rein run` itself, 17 requests):
 * for each pair of consecutive requests, whether the later one only appends messages to the earlier one
 * (the `cache_control` marker, which moves to the newest message, aside) and how many of the earlier
 * request's bytes the later one repeats from the start. Targets: every pair append-only (the session
 * stays far below half the window), median ≥ 98%.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic, text, toolCall, tools, type RecordedRequest } from '../tests/support/fakeAnthropic.js';
import { runWith, testTool } from '../tests/support/harness.js';
import { fmt, median } from './support.js';
import { baseEnv, twentyCalls, world } from './startup.js';

const SMALL = 'claude-haiku-5-5';
const STEPS = Number(process.env.REIN_BENCH_STEPS ?? 200);

async function session(discipline: boolean, resultWindowShare?: number) {
  const fake = await startFakeAnthropic();
  const isSmall = (r: RecordedRequest) => r.body.model === SMALL;
  const big = (i: number) => `output ${i}\n` + 'lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(350);
  const dump = testTool('dump', { run: (input) => big(Number(input.arg)) });
  let step = 0;
  fake.fallback = (r) => {
    if (isSmall(r))
      return text(
        JSON.stringify(r.body.system).includes('long-term memory')
          ? 'NONE'
          : `## Task state\nProcessed outputs up to step ${step}.`,
      );
    step++;
    return step <= STEPS ? tools([toolCall('dump', { arg: String(step) })]) : text('done');
  };
  const memoryDir = await mkdtemp(join(tmpdir(), 'rein-bench-ctx-'));
  const t0 = performance.now();
  const { outcome } = await runWith(fake, {
    tools: [dump],
    memoryDir,
    settings: {
      maxIterations: STEPS + 10,
      smallModel: SMALL,
      contextWindow: discipline ? 40_000 : 100_000_000,
      housekeeping: discipline,
      ...(resultWindowShare === undefined ? {} : { resultWindowShare }),
    },
  });
  const wallMs = performance.now() - t0;
  const a = fake.accounting;
  const requests = fake.requests.length;
  const maxRequest = Math.max(...fake.requests.map((r) => r.raw.length / 4));
  await fake.close();
  return {
    outcome,
    wallMs,
    requests,
    maxRequest,
    input: a.cacheRead + a.cacheWrite + a.uncached,
    cacheRead: a.cacheRead,
  };
}

const withoutMarkers = (v: unknown): unknown =>
  JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x));

function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The 20-call session through the built CLI; consecutive main-conversation requests compared. */
async function prefixStability() {
  const w = await world('ctx-prefix');
  const steps = twentyCalls('rein', w.project);
  const fake = await startFakeAnthropic({
    script: (req) => {
      if (!req.body.tools || req.body.tools.length === 0) return text('OK'); // a side request (a title)
      return steps[req.body.messages.filter((m) => m.role === 'assistant').length] ?? text('Done.');
    },
  });
  try {
    const env = {
      ...baseEnv(w),
      REIN_HOME: w.reinHome,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'bench-dummy',
    };
    // Not spawnSync: the fake answers from this process's event loop.
    await promisify(execFile)(
      process.execPath,
      [
        join(import.meta.dirname, '..', 'bin', 'rein.js'),
        'run',
        '--yes',
        '--json',
        'Look through these files and summarise them.',
      ],
      { env, cwd: w.project, encoding: 'utf8' },
    ).catch((e: { code?: number; stderr?: string; stdout?: string }) => {
      throw new Error(`rein run failed (exit ${e.code}): ${(e.stderr || e.stdout || String(e)).slice(0, 600)}`);
    });
    const main = fake.requests.filter((q) => (q.body.tools?.length ?? 0) > 0);
    const pairs = main.slice(1).map((next, i) => {
      const prev = main[i]!;
      const head = (q: typeof prev) => withoutMarkers({ ...q.body, messages: undefined });
      const appendOnly =
        head(prev) === head(next) &&
        prev.body.messages.length <= next.body.messages.length &&
        prev.body.messages.every((m, j) => withoutMarkers(m) === withoutMarkers(next.body.messages[j]));
      return { appendOnly, shared: sharedPrefix(prev.raw, next.raw) / prev.raw.length };
    });
    return { requests: main.length, pairs };
  } finally {
    await fake.close();
    rmSync(w.root, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const disciplined = await session(true);
  const naive = await session(false);
  const whole = await session(true, 0);
  console.log(`context benchmark (${STEPS} iterations, 20 KB tool outputs, 40,000-token window)`);
  console.log(`  stop reason                ${disciplined.outcome.stopReason}`);
  console.log(`  requests (incl. small)     ${disciplined.requests}`);
  console.log(`  largest request            ~${fmt(disciplined.maxRequest, 0)} tokens`);
  console.log(`  input tokens sent          ${disciplined.input.toLocaleString('en')}`);
  console.log(`  served from cache          ${fmt((100 * disciplined.cacheRead) / disciplined.input)}% (target ≥ 80%)`);
  console.log(
    `  naive run (no housekeeping, no compaction): ${naive.input.toLocaleString('en')} input tokens, largest request ~${fmt(naive.maxRequest, 0)} tokens`,
  );
  console.log(`  ratio to naive             ${fmt(disciplined.input / naive.input, 3)}× (target ≤ 0.3×)`);
  console.log(`  wall                       ${fmt(disciplined.wallMs)} ms`);
  console.log(
    `  each result whole in the context (no window cap): ${fmt((100 * whole.cacheRead) / whole.input)}% from the cache, ${whole.input.toLocaleString('en')} input tokens (at most ~78% possible: docs/benchmarks.md)`,
  );

  const p = await prefixStability();
  const shares = p.pairs.map((x) => 100 * x.shared);
  const appendOnly = p.pairs.filter((x) => x.appendOnly).length;
  console.log(`\nprefix stability, the 20-call session (rein run, ${p.requests} requests)`);
  console.log(`  append-only pairs          ${appendOnly}/${p.pairs.length} (target: all)`);
  console.log(
    `  bytes repeated from start  median ${fmt(median(shares))}%, worst ${fmt(Math.min(...shares))}% (target: median ≥ 98%)`,
  );
}
