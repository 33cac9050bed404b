/**
 * `npm run bench -- context`: the 200-iteration session of the context tests (20 KB tool outputs, a
 * 40,000-token window) against the fake Messages API, whose cache accounting imitates the provider's.
 * Prints input tokens sent, the share served from the cache, and the same session with housekeeping
 * and compaction off (the naive run) as a ratio. Targets: ≥ 80% cacheable, ≤ 0.3× the naive tokens.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic, text, toolCall, tools, type RecordedRequest } from '../tests/support/fakeAnthropic.js';
import { runWith, testTool } from '../tests/support/harness.js';
import { fmt } from './support.js';

const SMALL = 'claude-haiku-5-5';
const STEPS = Number(process.env.REIN_BENCH_STEPS ?? 200);

async function session(discipline: boolean) {
  const fake = await startFakeAnthropic();
  const isSmall = (r: RecordedRequest) => r.body.model === SMALL;
  const big = (i: number) => `output ${i}\n` + 'lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(350);
  const dump = testTool('dump', { run: (input) => big(Number(input.arg)) });
  let step = 0;
  fake.fallback = (r) => {
    if (isSmall(r)) return text(JSON.stringify(r.body.system).includes('long-term memory') ? 'NONE' : `## Task state\nProcessed outputs up to step ${step}.`);
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
    },
  });
  const wallMs = performance.now() - t0;
  const a = fake.accounting;
  const requests = fake.requests.length;
  const maxRequest = Math.max(...fake.requests.map((r) => r.raw.length / 4));
  await fake.close();
  return { outcome, wallMs, requests, maxRequest, input: a.cacheRead + a.cacheWrite + a.uncached, cacheRead: a.cacheRead };
}

export async function run(): Promise<void> {
  const disciplined = await session(true);
  const naive = await session(false);
  console.log(`context benchmark (${STEPS} iterations, 20 KB tool outputs, 40,000-token window)`);
  console.log(`  stop reason                ${disciplined.outcome.stopReason}`);
  console.log(`  requests (incl. small)     ${disciplined.requests}`);
  console.log(`  largest request            ~${fmt(disciplined.maxRequest, 0)} tokens`);
  console.log(`  input tokens sent          ${disciplined.input.toLocaleString('en')}`);
  console.log(`  served from cache          ${fmt((100 * disciplined.cacheRead) / disciplined.input)}% (target ≥ 80%)`);
  console.log(`  naive run (no housekeeping, no compaction): ${naive.input.toLocaleString('en')} input tokens, largest request ~${fmt(naive.maxRequest, 0)} tokens`);
  console.log(`  ratio to naive             ${fmt(disciplined.input / naive.input, 3)}× (target ≤ 0.3×)`);
  console.log(`  wall                       ${fmt(disciplined.wallMs)} ms`);
}
