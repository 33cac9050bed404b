import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryCommand } from '../../../src-main/cli/commands/memory.js';
import { UsageError, type CliIo } from '../../../src-main/cli/io.js';
import { ReinError } from '../../../src-main/core/errors.js';
import { boundedAppend, MEMORY_LINE_BOUND } from '../../../src-main/core/memory/index.js';
import { scriptedLlm } from './fakeLlm.js';
import { numberedLines, tempDir, writeAutoFiles } from './tempMemory.js';

const NOW = new Date(2026, 2, 5, 14, 30);
let home: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const t = await tempDir('rein-memory-cli-');
  cleanup = t.cleanup;
  home = join(t.root, 'home');
  await mkdir(home);
});
afterEach(() => cleanup());

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (d: string) => (text += d));
  return { stream, text: () => text };
}

async function run(argv: string[], opts: { stdin?: string; llm?: ReturnType<typeof scriptedLlm> } = {}) {
  const out = collect();
  const err = collect();
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  const io: CliIo = { stdin, stdout: out.stream, stderr: err.stream, env: { REIN_HOME: home }, cwd: home };
  const code = await memoryCommand(argv, io, { now: NOW, ...(opts.llm ? { llm: opts.llm } : {}) });
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out.text(), stderr: err.text() };
}

const memoryOf = (dir: string) => readFile(join(dir, 'MEMORY.md'), 'utf8');

describe('rein memory', () => {
  it('show says when there is no memory yet', async () => {
    const r = await run(['show']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`No memory yet for agent "default" (${join(home, 'memory', 'MEMORY.md')})`);
  });

  it('append adds text from the arguments or stdin, and show prints it', async () => {
    expect((await run(['append', '-', 'likes', 'green', 'tea'])).stdout).toBe(
      `appended to ${join(home, 'memory', 'MEMORY.md')}\n`,
    );
    expect((await run(['append'], { stdin: '- works from Lyon\n' })).code).toBe(0);
    expect((await run(['show'])).stdout).toBe('- likes green tea\n- works from Lyon\n');
  });

  it('show --prompt prints what the model gets, overflow files inlined', async () => {
    const dir = join(home, 'memory');
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND));
    await run(['append', '- kept in an overflow file']);
    const plain = await run(['show']);
    expect(plain.stdout).not.toContain('kept in an overflow file');
    expect(plain.stderr).toContain('1 overflow file in');
    const prompt = await run(['show', '--prompt']);
    expect(prompt.stdout).toContain(
      '- line 150\n# Auto-persisted Learnings (2026-03-05)\n\n- kept in an overflow file\n',
    );
    expect(prompt.stdout).not.toContain('See [auto-');
  });

  it('--agent uses the named agent memory beside AGENT.md and leaves the default agent alone', async () => {
    const missing = await run(['append', '--agent', 'ops', '- x']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('agent "ops" not found');
    await mkdir(join(home, 'agents', 'ops'), { recursive: true });
    await writeFile(join(home, 'agents', 'ops', 'AGENT.md'), 'You run operations.\n');
    expect((await run(['append', '--agent', 'ops', '- pager rota on Mondays'])).code).toBe(0);
    expect(await memoryOf(join(home, 'agents', 'ops'))).toBe('- pager rota on Mondays\n');
    expect((await run(['show'])).stdout).toBe('');
  });

  it('consolidate runs on request with the configured small model and reports the result', async () => {
    const dir = join(home, 'memory');
    await boundedAppend(dir, '# Mine\n- user line\n');
    await writeAutoFiles(dir, 3);
    const llm = scriptedLlm('- merged one\n- merged two');
    const r = await run(['consolidate'], { llm });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('Consolidated 3 overflow files');
    expect(r.stdout).toContain('into 2 lines');
    expect(llm.requests[0]?.model).toBe('claude-haiku-5-5');
    expect(await memoryOf(dir)).toBe(
      '# Mine\n- user line\n\n## Auto-consolidated (2026-03-05 14:30)\n\n- merged one\n- merged two\n',
    );
  });

  it('consolidate --if-due respects the trigger', async () => {
    const dir = join(home, 'memory');
    await mkdir(dir);
    await writeAutoFiles(dir, 3);
    const llm = scriptedLlm('- merged');
    expect((await run(['consolidate', '--if-due'], { llm })).stdout).toBe('Consolidation is not due yet.\n');
    expect(llm.requests).toHaveLength(0);
  });

  it('consolidate fails with exit 1 and leaves memory unchanged when the model fails', async () => {
    const dir = join(home, 'memory');
    await boundedAppend(dir, '- user line');
    await writeAutoFiles(dir, 3);
    const r = await run(['consolidate'], {
      llm: scriptedLlm(new ReinError('llm_failed', 'LLM call failed: HTTP 529')),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HTTP 529');
    expect(await memoryOf(dir)).toBe('- user line\n');
  });

  it('rejects bad usage', async () => {
    await expect(run(['frobnicate'])).rejects.toBeInstanceOf(UsageError);
    await expect(run(['show', '--agent', 'Bad Name'])).rejects.toThrow('--agent');
    await expect(run(['append'])).rejects.toThrow('nothing to append');
    await expect(run(['append', '--prompt', 'x'])).rejects.toThrow('--prompt');
    expect((await run([])).code).toBe(2);
  });
});
