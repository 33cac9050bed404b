/** Results over their budget: saved whole, previewed by head and tail, never the whole content again. */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spillIfOverBudget } from '../../../src-main/core/harness/spill.js';

const where = async () => ({
  sessionDir: await mkdtemp(join(tmpdir(), 'rein-spill-')),
  callId: 'toolu_1',
  tool: 'bash',
});

describe('spillIfOverBudget', () => {
  it('keeps a result within its budget as it is', async () => {
    expect(await spillIfOverBudget('short', 100, await where())).toEqual({ content: 'short' });
  });

  it('saves the whole result and previews head and tail', async () => {
    const big = `${'a'.repeat(5_000)}${'z'.repeat(5_000)}`;
    const out = await spillIfOverBudget(big, 4_000, await where());
    expect(await readFile(out.savedTo!, 'utf8')).toBe(big);
    expect(out.content.startsWith('a'.repeat(2_000))).toBe(true);
    expect(out.content).toContain('z'.repeat(1_000));
    expect(out.content.length).toBeLessThan(4_000);
  });

  it('with a budget too small for a tail, previews the head only (not the whole result)', async () => {
    const big = 'x'.repeat(50_000);
    const out = await spillIfOverBudget(big, 1_500, await where());
    expect(out.content.length).toBeLessThan(2_000);
    expect(out.content).toContain('characters omitted');
  });
});
