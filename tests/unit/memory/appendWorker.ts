/**
 * Child process for the concurrency test: appends `count` two-line entries tagged with this worker's id
 * to one memory folder, as fast as it can. Run with `node --import tsx appendWorker.ts DIR ID COUNT`.
 */
import { boundedAppend } from '../../../src-main/core/memory/boundedAppend.js';

const [dir, id, count] = process.argv.slice(2);
if (!dir || !id || !count) throw new Error('usage: appendWorker DIR ID COUNT');

// A long first line makes a torn or interleaved write visible as a broken line.
for (let j = 0; j < Number(count); j++) {
  const tag = `w${id}-${String(j).padStart(4, '0')}`;
  await boundedAppend(dir, `- ${tag} begin ${'x'.repeat(120)}\n  ${tag} end`, { lockWaitMs: 300_000 });
}
