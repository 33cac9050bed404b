/**
 * Permission engine throughput over the labelled corpus: decisions per second after warm-up and the
 * p50/p99 time of one decision in microseconds. Figures are printed, never asserted (target p99 < 1 ms).
 */
import { performance } from 'node:perf_hooks';
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
    agent: 'default',
  }));

  for (let i = 0; i < WARMUP_ROUNDS; i++) for (const c of calls) engine.check(c);

  const samples: number[] = [];
  const start = performance.now();
  for (let i = 0; i < MEASURED_ROUNDS; i++) {
    for (const c of calls) {
      const s = performance.now();
      engine.check(c);
      samples.push((performance.now() - s) * 1000);
    }
  }
  const totalMs = performance.now() - start;
  samples.sort((a, b) => a - b);
  const fmt = (n: number) => n.toFixed(1);
  console.log(`permissions: ${corpus.length} corpus lines × ${MEASURED_ROUNDS} rounds (after ${WARMUP_ROUNDS} warm-up rounds)`);
  console.log(`  parser init      ${fmt(initMs)} ms`);
  console.log(`  decisions/s      ${Math.round((samples.length / totalMs) * 1000).toLocaleString('en-US')}`);
  console.log(`  p50              ${fmt(percentile(samples, 50))} µs`);
  console.log(`  p90              ${fmt(percentile(samples, 90))} µs`);
  console.log(`  p99              ${fmt(percentile(samples, 99))} µs   (target < 1000 µs)`);
  console.log(`  max              ${fmt(samples[samples.length - 1]!)} µs`);
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''));
if (invokedDirectly) await run();
