/**
 * `npm run bench -- harness`: one scripted run with 20 tool calls (parallel read batches, bash, grep)
 * against the fake Messages API at zero model latency, the fake in its own process so the figures are
 * the harness's alone. Prints wall time, CPU per model request, peak RSS, requests and the median
 * stable-prefix ratio of consecutive request bodies (breakpoint markers aside: they are not content).
 * Targets: CPU per request ≤ 20 ms, peak RSS ≤ 150 MB, stable-prefix ratio ≥ 0.9.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../src-main/core/harness/loop.js';
import { AnthropicLlm } from '../src-main/core/llm/client.js';
import { ApprovalBroker } from '../src-main/core/permissions/approvalBroker.js';
import { basicPolicy } from '../src-main/core/permissions/basicPolicy.js';
import { ToolRegistry } from '../src-main/core/tools/registry.js';
import { builtinTools } from '../src-main/core/tools/builtin/index.js';
import { SessionReadTracker } from '../src-main/core/tools/readTracker.js';
import { SessionStore } from '../src-main/core/sessions/store.js';
import { stripCacheControl, text, toolCall, tools, type FakeReply } from '../tests/support/fakeAnthropic.js';
import { commonPrefixLength, fmt, median, startRemoteFake } from './support.js';

export async function run(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'rein-bench-harness-'));
  for (let i = 0; i < 12; i++) {
    await writeFile(
      join(work, `file${i}.txt`),
      Array.from({ length: 200 }, (_, n) => `line ${n} of file ${i}: lorem ipsum dolor sit amet`).join('\n'),
    );
  }
  const reads = (ids: number[]) => ids.map((i) => toolCall('file_read', { path: `file${i}.txt`, limit: 50 }));
  const script: FakeReply[] = [
    tools(reads([0, 1, 2, 3, 4]), 'Reading the first files.'),
    tools([toolCall('bash', { command: 'ls -la' })]),
    tools([toolCall('grep', { pattern: 'line 1[0-9] of', path: '.', max_results: 20 })]),
    tools(reads([5, 6, 7, 8])),
    tools([toolCall('bash', { command: 'wc -l file1.txt file2.txt' })]),
    tools([toolCall('grep', { pattern: 'ipsum', path: '.', glob: '*.txt', max_results: 30 })]),
    tools(reads([9, 10, 11])),
    tools([toolCall('glob', { pattern: '*.txt' }), toolCall('directory_list', { path: '.' })]),
    tools([
      toolCall('bash', { command: 'head -3 file0.txt' }),
      toolCall('grep', { pattern: 'dolor', path: 'file3.txt' }),
    ]),
    text('All twenty calls are done; the files hold 200 lines each.'),
  ];
  // The first pass warms up the JIT, the SDK and the tool code paths; the second is measured.
  await once(work, script, false, 'harness benchmark (20 tool calls: parallel reads, bash, grep)');
  await once(work, script, true, 'harness benchmark (20 tool calls: parallel reads, bash, grep)');
  // The same number of requests with an in-process tool only: the loop's own cost, without the
  // fork/exec of bash and ripgrep that dominates the first figure.
  const thinkOnly: FakeReply[] = [
    ...Array.from({ length: 9 }, (_, i) =>
      tools([toolCall('think', { thought: `step ${i}` }), toolCall('think', { thought: `check ${i}` })]),
    ),
    text('done'),
  ];
  await once(work, thinkOnly, true, 'loop overhead (same request count, in-process tools only)');
}

async function once(work: string, script: FakeReply[], report: boolean, title: string): Promise<void> {
  const fake = await startRemoteFake(script);
  try {
    const store = new SessionStore(join(work, 'home', 'sessions'));
    const session = store.create({ agent: 'default', cwd: work, source: 'bench' });
    const registry = new ToolRegistry(builtinTools());
    const llm = new AnthropicLlm({ apiKey: 'bench', baseURL: fake.url });
    const rssBefore = process.memoryUsage().rss / 1024 / 1024;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const gen = runAgent(
      {
        prompt: 'Look through these files and summarise them.',
        session,
        save: (s) => store.save(s),
        source: 'bench',
        agent: 'default',
        origin: 'attended',
        route: 'bench',
        model: 'claude-sonnet-5-5',
        cwd: work,
        settings: {
          model: 'claude-sonnet-5-5',
          maxTokens: 4096,
          maxIterations: 25,
          maxUsdPerRun: 0,
          maxParallel: 10,
          resultBudget: 30_000,
          mode: 'bypassPermissions',
          contextWindow: 200_000,
        },
        toolContext: {
          cwd: work,
          sessionId: session.id,
          sessionDir: store.sideDir(session.id),
          reinHome: join(work, 'home'),
          agent: 'default',
          readTracker: new SessionReadTracker(),
          egress: async () => ({ allowed: true }),
        },
        signal: new AbortController().signal,
      },
      { llm, registry, policy: basicPolicy({ yes: true }), broker: new ApprovalBroker([]) },
    );
    let toolCalls = 0;
    let stop = '';
    for (;;) {
      const s = await gen.next();
      if (s.done) {
        stop = s.value.stopReason;
        break;
      }
      if (s.value.type === 'tool_call_end') toolCalls++;
    }
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const stats = await fake.stats();
    const bodies = stats.raw.map(stripCacheControl);
    const ratios: number[] = [];
    for (let i = 1; i < bodies.length; i++)
      ratios.push(commonPrefixLength(bodies[i - 1]!, bodies[i]!) / bodies[i]!.length);
    const requests = bodies.length;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const rssMb = process.resourceUsage().maxRSS / 1024;
    if (!report) return;
    console.log(title);
    console.log(`  stop reason            ${stop}`);
    console.log(`  tool calls             ${toolCalls}`);
    console.log(`  model requests         ${requests}`);
    console.log(`  wall                   ${fmt(wallMs)} ms`);
    console.log(`  CPU                    ${fmt(cpuMs)} ms (${fmt(cpuMs / requests)} ms per request; target ≤ 20)`);
    console.log(
      `  peak RSS               ${fmt(rssMb)} MB (target ≤ 150; ${fmt(rssBefore)} MB before the run, incl. the tsx loader)`,
    );
    console.log(
      `  stable-prefix ratio    median ${fmt(median(ratios), 3)} (min ${fmt(Math.min(...ratios), 3)}; target ≥ 0.9)`,
    );
  } finally {
    fake.close();
  }
}
