/**
 * `rein … | head -1`: the reader quits after one line and every later write of rein's meets a closed
 * pipe (EPIPE). Each command must then end quietly — nothing on stderr, exit code 0 — not with Node's
 * "Unhandled 'error' event" stack trace. Each command here writes far more than a pipe holds (64 KiB),
 * so the pipe really closes under it; the test checks that too, or it could not fail.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliWorld, rein, REIN_BIN } from '../support/cli.js';
import { text, type FakeAnthropic } from '../support/fakeAnthropic.js';

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
});
afterEach(async () => {
  await fake.close();
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Piped {
  /** rein's own exit status (not head's). */
  status: number;
  /** What head let through. */
  stdout: string;
  /** rein's stderr. */
  stderr: string;
}

/** `{ rein ARGS [< stdin]; echo $? > status; } | head -1`, in a real shell with a real pipe. */
async function piped(args: string[], stdinFile?: string): Promise<Piped> {
  const statusFile = join(cwd, `status-${Math.random().toString(16).slice(2)}`);
  const line = `{ ${quote(process.execPath)} ${quote(REIN_BIN)} ${args.map(quote).join(' ')}${stdinFile ? ` < ${quote(stdinFile)}` : ''} 2> ${quote(`${statusFile}.err`)}; echo $? > ${quote(statusFile)}; } | head -1`;
  const child = spawn('/bin/sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  await new Promise<void>((ok) => child.on('close', () => ok()));
  const status = Number((await readFile(statusFile, 'utf8')).trim());
  const stderr = await readFile(`${statusFile}.err`, 'utf8');
  return { status, stdout, stderr };
}

/** The same command without head: its whole output (so a test knows it is bigger than a pipe's buffer). */
async function fullOutput(args: string[], stdin?: string): Promise<string> {
  const r = await rein(args, { env, cwd, ...(stdin !== undefined ? { stdin } : {}) });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

const PIPE_BUFFER = 64 * 1024;

function expectQuiet(r: Piped, firstLine: RegExp): void {
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(firstLine);
  expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
}

describe('a reader that closes the pipe early', () => {
  it('permissions check --batch: many lines, each its own write', async () => {
    const calls = `${Array.from({ length: 4000 }, (_, i) => JSON.stringify({ tool: 'bash', input: { command: `ls /tmp/${i}` } })).join('\n')}\n`;
    const file = join(cwd, 'calls.jsonl');
    await writeFile(file, calls);
    expect((await fullOutput(['permissions', 'check', '--batch'], calls)).length).toBeGreaterThan(4 * PIPE_BUFFER);
    expectQuiet(await piped(['permissions', 'check', '--batch'], file), /^\{"line":1,/);
  });

  it('schedule list and list --json: thousands of schedules', async () => {
    const at = '2026-01-05T09:00:00.000Z';
    const schedules = Array.from({ length: 3000 }, (_, i) => ({
      id: i.toString(16).padStart(8, '0'),
      agent: 'default',
      cron: '0 9 * * *',
      prompt: `summarise the failures of pipeline number ${i}`,
      enabled: false,
      created_at: at,
      updated_at: at,
    }));
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'schedules.json'), JSON.stringify({ version: 1, schedules }));
    expect((await fullOutput(['schedule', 'list'])).length).toBeGreaterThan(2 * PIPE_BUFFER);
    expectQuiet(await piped(['schedule', 'list']), /00000000/);
    expectQuiet(await piped(['schedule', 'list', '--json']), /^\[\{"id":"00000000"/);
  });

  it('schedule logs: one big write of a whole log', async () => {
    const at = '2026-01-05T09:00:00.000Z';
    await mkdir(join(home, 'schedules', '1a2b3c4d', 'logs'), { recursive: true });
    await writeFile(
      join(home, 'schedules.json'),
      JSON.stringify({
        version: 1,
        schedules: [
          {
            id: '1a2b3c4d',
            agent: 'default',
            cron: '0 9 * * *',
            prompt: 'p',
            enabled: false,
            created_at: at,
            updated_at: at,
          },
        ],
      }),
    );
    await writeFile(
      join(home, 'schedules', '1a2b3c4d', 'logs', '2026-01-05-090000.log'),
      `first line\n${'a line of the run\n'.repeat(40_000)}`,
    );
    expect((await fullOutput(['schedule', 'logs', '1a2b3c4d'])).length).toBeGreaterThan(4 * PIPE_BUFFER);
    expectQuiet(await piped(['schedule', 'logs', '1a2b3c4d']), /^first line$/m);
  });

  it('run (the answer streams), sessions show and sessions list', async () => {
    const answer = Array.from({ length: 8000 }, (_, i) => `line ${i} of a long answer`).join('\n');
    expect(answer.length).toBeGreaterThan(2 * PIPE_BUFFER);
    fake.enqueue(text(answer, { chunkSize: 2048 }));
    expectQuiet(await piped(['run', 'write a long answer']), /^line 0 of a long answer/);

    // A long session to show, and a short one copied into a long list.
    const dir = join(home, 'sessions');
    const sessionsNow = async () =>
      new Set((await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')));
    const newSession = async (reply: string): Promise<string> => {
      const before = await sessionsNow();
      fake.enqueue(text(reply, { chunkSize: 2048 }));
      const r = await rein(['run', 'answer'], { env, cwd });
      expect(r.code, r.stderr).toBe(0);
      const [file] = [...(await sessionsNow())].filter((n) => !before.has(n));
      return file!;
    };
    const long = await newSession(answer);
    const short = await newSession('A short answer.');
    const longId = long.slice(0, -5);
    expect((await fullOutput(['sessions', 'show', longId])).length).toBeGreaterThan(2 * PIPE_BUFFER);
    expectQuiet(await piped(['sessions', 'show', longId]), /./);

    const session = JSON.parse(await readFile(join(dir, short), 'utf8')) as Record<string, unknown>;
    for (let i = 0; i < 1500; i++) {
      const copy = `2026-01-05-${i.toString(16).padStart(12, '0')}`;
      await writeFile(join(dir, `${copy}.json`), JSON.stringify({ ...session, id: copy }));
    }
    expect((await fullOutput(['sessions', 'list', '--limit', '5000'])).length).toBeGreaterThan(PIPE_BUFFER);
    expectQuiet(await piped(['sessions', 'list', '--limit', '5000']), /./);
    expect((await rein(['sessions', 'reindex'], { env, cwd })).code).toBe(0);
    expect((await fullOutput(['sessions', 'search', 'short', '--limit', '5000'])).length).toBeGreaterThan(PIPE_BUFFER);
    expectQuiet(await piped(['sessions', 'search', 'short', '--limit', '5000']), /./);
  }, 60_000);
});
