import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReinError } from '../../../src-main/core/errors.js';
import { consolidateMemory, loadMemory, shouldConsolidate, splitMemory } from '../../../src-main/core/memory/index.js';
import { response, scriptedLlm } from './fakeLlm.js';
import { autoFiles, DAY_MS, readMemory, setMtime, tempDir, writeAutoFiles } from './tempMemory.js';

const NOW = new Date(2026, 2, 5, 14, 30);
const signal = new AbortController().signal;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root: dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

const POINTER = '- [2026-03-01] See [auto-2026-03-01-000000.md](auto-2026-03-01-000000.md) for details';
const USER_TOP = '# About me\n\n- I write Go at work   \n  - indented note, kept as is\n';
const USER_BOTTOM = '## Projects\n\n- rein: a menu-bar agent\n';
const MEMORY = [
  USER_TOP,
  '## Auto-persisted (2026-02-20 09:15)\n\n- learned fact one\n- learned fact two\n\n',
  USER_BOTTOM,
  `${POINTER}\n`,
].join('');

/** Every file in the folder with its bytes and mtime, to prove that a failed run touched nothing. */
async function snapshot(): Promise<Record<string, { text: string; mtimeMs: number }>> {
  const out: Record<string, { text: string; mtimeMs: number }> = {};
  for (const name of (await readdir(dir)).sort()) {
    const p = join(dir, name);
    out[name] = { text: await readFile(p, 'utf8'), mtimeMs: (await stat(p)).mtimeMs };
  }
  return out;
}

describe('shouldConsolidate', () => {
  it('needs at least 12 overflow files', async () => {
    await writeAutoFiles(dir, 11);
    await writeFile(join(dir, 'auto-notes.md'), 'not an overflow file name');
    expect(await shouldConsolidate(dir, NOW)).toBe(false);
    await writeAutoFiles(dir, 12);
    expect(await shouldConsolidate(dir, NOW)).toBe(true);
  });

  it('waits 7 days after the last consolidation (.memory_gc mtime); a missing marker means long ago', async () => {
    await writeAutoFiles(dir, 12);
    expect(await shouldConsolidate(dir, NOW)).toBe(true);
    const marker = join(dir, '.memory_gc');
    await writeFile(marker, '');
    await setMtime(marker, new Date(NOW.getTime() - 6 * DAY_MS));
    expect(await shouldConsolidate(dir, NOW)).toBe(false);
    await setMtime(marker, new Date(NOW.getTime() - 7 * DAY_MS));
    expect(await shouldConsolidate(dir, NOW)).toBe(true);
  });

  it('is false for a folder that does not exist', async () => {
    expect(await shouldConsolidate(join(dir, 'missing'), NOW)).toBe(false);
  });
});

describe('splitMemory', () => {
  it('separates auto sections and pointer lines from the user lines, keeping both in order', () => {
    const { user, auto } = splitMemory(MEMORY);
    expect(user).toBe(`${USER_TOP}${USER_BOTTOM}`);
    expect(auto).toBe(`## Auto-persisted (2026-02-20 09:15)\n\n- learned fact one\n- learned fact two\n\n${POINTER}\n`);
  });
});

describe('consolidateMemory', () => {
  it('does nothing and asks no model when not due', async () => {
    await writeFile(join(dir, 'MEMORY.md'), MEMORY);
    await writeAutoFiles(dir, 11);
    const llm = scriptedLlm('- merged');
    const before = await snapshot();
    expect(await consolidateMemory(dir, { llm, model: 'small', now: NOW, signal })).toEqual({
      status: 'skipped',
      reason: 'not due',
    });
    expect(llm.requests).toHaveLength(0);
    expect(await snapshot()).toEqual(before);
  });

  it('merges auto sections and overflow files with the small model, keeping user lines verbatim', async () => {
    await writeFile(join(dir, 'MEMORY.md'), MEMORY);
    const files = await writeAutoFiles(dir, 12);
    const llm = scriptedLlm('- merged fact A\n- merged fact B (detail)\n');

    const outcome = await consolidateMemory(dir, { llm, model: 'claude-small', now: NOW, signal });

    expect(outcome).toEqual({ status: 'consolidated', consumedFiles: files, lines: 2, leftover: [] });
    expect(await readMemory(dir)).toBe(
      `${USER_TOP}${USER_BOTTOM}\n## Auto-consolidated (2026-03-05 14:30)\n\n- merged fact A\n- merged fact B (detail)\n`,
    );
    expect(await autoFiles(dir)).toEqual([]);
    const marker = await stat(join(dir, '.memory_gc'));
    expect(marker.mtimeMs).toBe(NOW.getTime());

    expect(llm.requests).toHaveLength(1);
    const req = llm.requests[0]!;
    expect(req).toMatchObject({ model: 'claude-small', maxTokens: 2000, temperature: 0.2, tools: [] });
    const prompt = String(req.messages[0]!.content);
    expect(prompt).toContain('- learned fact one');
    expect(prompt).toContain('- fact number 0');
    expect(prompt).toContain('- fact number 11');
    // The user's own lines are never handed to the model to rewrite.
    expect(prompt).not.toContain('I write Go at work');
    expect(prompt).not.toContain('rein: a menu-bar agent');
  });

  it('starts the cooldown again: 6 days later it is not due, 7 days later it is', async () => {
    await writeFile(join(dir, 'MEMORY.md'), MEMORY);
    await writeAutoFiles(dir, 12);
    await consolidateMemory(dir, { llm: scriptedLlm('- merged'), model: 'small', now: NOW, signal });
    await writeAutoFiles(dir, 12, '2026-03-06');
    expect(await shouldConsolidate(dir, new Date(NOW.getTime() + 6 * DAY_MS))).toBe(false);
    expect(await shouldConsolidate(dir, new Date(NOW.getTime() + 7 * DAY_MS))).toBe(true);
  });

  it('folds an earlier Auto-consolidated section into the next one instead of stacking them', async () => {
    await writeFile(join(dir, 'MEMORY.md'), MEMORY);
    await writeAutoFiles(dir, 12);
    await consolidateMemory(dir, { llm: scriptedLlm('- first round'), model: 'small', now: NOW, signal });
    await writeAutoFiles(dir, 12, '2026-03-20');
    const later = new Date(2026, 2, 13, 14, 30); // 8 days on, built locally so DST cannot move the hour
    const llm = scriptedLlm('- second round');
    await consolidateMemory(dir, { llm, model: 'small', now: later, signal });
    expect(String(llm.requests[0]!.messages[0]!.content)).toContain('- first round');
    const text = await readMemory(dir);
    expect(text).toBe(`${USER_TOP}${USER_BOTTOM}\n## Auto-consolidated (2026-03-13 14:30)\n\n- second round\n`);
  });

  it('removes the auto part entirely when the model answers NONE', async () => {
    await writeFile(join(dir, 'MEMORY.md'), MEMORY);
    await writeAutoFiles(dir, 12);
    const outcome = await consolidateMemory(dir, { llm: scriptedLlm('NONE'), model: 'small', now: NOW, signal });
    expect(outcome).toMatchObject({ status: 'consolidated', lines: 0 });
    expect(await readMemory(dir)).toBe(`${USER_TOP}${USER_BOTTOM}`);
    expect(await autoFiles(dir)).toEqual([]);
  });

  it('strips fences, top-level headings and copied pointer lines from the answer', async () => {
    await writeFile(join(dir, 'MEMORY.md'), MEMORY);
    await writeAutoFiles(dir, 12);
    const answer = `\`\`\`markdown\n## Notes\n- kept\n${POINTER}\n### fine subheading\n- also kept\n\`\`\``;
    await consolidateMemory(dir, { llm: scriptedLlm(answer), model: 'small', now: NOW, signal });
    const { auto } = splitMemory(await readMemory(dir));
    expect(auto).toBe('## Auto-consolidated (2026-03-05 14:30)\n\n- kept\n### fine subheading\n- also kept\n');
  });

  const failures: Array<[string, () => ReturnType<typeof scriptedLlm>]> = [
    ['the model call fails', () => scriptedLlm(new ReinError('llm_failed', 'HTTP 500: overloaded'))],
    ['the answer is empty', () => scriptedLlm('  \n')],
    ['the answer is only a code fence', () => scriptedLlm('```\n```')],
    ['the answer was cut off at max_tokens', () => scriptedLlm(response('- half a li', 'max_tokens'))],
  ];
  for (const [what, makeLlm] of failures) {
    it(`changes nothing on disk when ${what}`, async () => {
      await writeFile(join(dir, 'MEMORY.md'), MEMORY);
      await writeAutoFiles(dir, 12);
      const before = await snapshot();
      const err = await consolidateMemory(dir, { llm: makeLlm(), model: 'small', now: NOW, signal }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ReinError);
      expect((err as ReinError).code).toBe('llm_failed');
      expect(await snapshot()).toEqual(before);
      expect(await readdir(dir)).not.toContain('.memory_gc');
      // and memory still loads as it did
      expect(await loadMemory(dir, { maxChars: 100_000 })).toContain('learned fact two');
    });
  }

  it('runs when forced even if not due, and skips when there is nothing automatic to merge', async () => {
    await writeFile(join(dir, 'MEMORY.md'), USER_TOP);
    const llm = scriptedLlm('- x');
    expect(await consolidateMemory(dir, { llm, model: 'small', now: NOW, signal, force: true })).toEqual({
      status: 'skipped',
      reason: 'nothing to consolidate',
    });
    expect(llm.requests).toHaveLength(0);
    await writeAutoFiles(dir, 2);
    expect(await consolidateMemory(dir, { llm, model: 'small', now: NOW, signal, force: true })).toMatchObject({
      status: 'consolidated',
      lines: 1,
    });
    expect(await readMemory(dir)).toBe(`${USER_TOP.trimEnd()}\n\n## Auto-consolidated (2026-03-05 14:30)\n\n- x\n`);
  });

  it('leaves overflow files beyond the input limit for the next consolidation', async () => {
    await writeFile(join(dir, 'MEMORY.md'), USER_TOP);
    const files = await writeAutoFiles(dir, 12);
    for (const [i, name] of files.entries())
      await setMtime(join(dir, name), new Date(NOW.getTime() - (100 - i) * 60_000));
    const outcome = await consolidateMemory(dir, {
      llm: scriptedLlm('- merged'),
      model: 'small',
      now: NOW,
      signal,
      maxInputChars: 200,
    });
    expect(outcome.status).toBe('consolidated');
    const consumed = outcome.status === 'consolidated' ? outcome.consumedFiles : [];
    expect(consumed.length).toBeGreaterThan(0);
    expect(consumed).toEqual(files.slice(0, consumed.length)); // the oldest go first
    expect(await autoFiles(dir)).toEqual(files.slice(consumed.length));
  });
});
