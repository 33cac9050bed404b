/**
 * Permission engine throughput over the labelled corpus: decisions per second after warm-up and the
 * p50/p99 time of one decision in microseconds. Figures are printed, never asserted (target p99 < 1 ms).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createPermissionEngine } from '../src-main/core/permissions/engine.js';
import { initShellParser } from '../src-main/core/permissions/shell/parser.js';
import type { PermissionCheck } from '../src-main/core/permissions/types.js';
import { bashTool } from '../src-main/core/tools/builtin/bash.js';
import { CORPUS_CWD, CORPUS_HOME, loadCorpus } from '../tests/unit/permissions/corpusFile.js';

const WARMUP_ROUNDS = 3;
const MEASURED_ROUNDS = 10;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function run(): Promise<void> {
  const t0 = performance.now();
  await initShellParser();
  const initMs = performance.now() - t0;
  const corpus = loadCorpus();
  const engine = createPermissionEngine({ permissions: {}, home: CORPUS_HOME });
  const calls: PermissionCheck[] = corpus.map((r) => ({
    tool: bashTool,
    input: { command: r.command },
    cwd: CORPUS_CWD,
    mode: 'default',
    source: 'cli',
    origin: 'attended' as const,
    agent: 'default',
  }));

  for (let i = 0; i < WARMUP_ROUNDS; i++) for (const c of calls) engine.check(c);

  // samples[line][round]: the raw distribution, and each line's median (robust to the scheduler pausing us).
  const perLine: number[][] = calls.map(() => []);
  const start = performance.now();
  for (let i = 0; i < MEASURED_ROUNDS; i++) {
    calls.forEach((c, k) => {
      const s = performance.now();
      engine.check(c);
      perLine[k]!.push((performance.now() - s) * 1000);
    });
  }
  const totalMs = performance.now() - start;
  const raw = perLine.flat().sort((a, b) => a - b);
  const medians = perLine.map((xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!).sort((a, b) => a - b);
  const fmt = (n: number) => n.toFixed(1).padStart(8);
  console.log(
    `permissions: ${corpus.length} corpus lines × ${MEASURED_ROUNDS} rounds (after ${WARMUP_ROUNDS} warm-up rounds), mode default`,
  );
  console.log(`  parser init        ${fmt(initMs)} ms`);
  console.log(
    `  decisions/s        ${Math.round((raw.length / totalMs) * 1000)
      .toLocaleString('en-US')
      .padStart(8)}`,
  );
  console.log('  per decision, all samples:');
  console.log(`    p50              ${fmt(percentile(raw, 50))} µs`);
  console.log(`    p99              ${fmt(percentile(raw, 99))} µs   (target < 1000 µs)`);
  console.log(`    max              ${fmt(raw[raw.length - 1]!)} µs`);
  console.log('  per decision, median of each line over the rounds (ignores scheduler pauses):');
  console.log(`    p50              ${fmt(percentile(medians, 50))} µs`);
  console.log(`    p99              ${fmt(percentile(medians, 99))} µs   (target < 1000 µs)`);
  console.log(`    slowest line     ${fmt(medians[medians.length - 1]!)} µs`);
}

// `npx tsx bench/permissions.ts` runs it directly; `npm run bench -- permissions` imports run().
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
