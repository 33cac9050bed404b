/** Runs the built `rein` CLI as a child process, the way a user would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeAnthropic, type FakeAnthropic } from './fakeAnthropic.js';

export const REIN_BIN = resolve(__dirname, '../../bin/rein.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function tempHome(): Promise<{ home: string; cwd: string }> {
  const root = await mkdtemp(join(tmpdir(), 'rein-cli-'));
  return { home: join(root, 'home'), cwd: root };
}

export function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    REIN_RETRY_BASE_MS: '5',
  };
  // This test run's code cache (tests/support/globalSetup.ts), not the user's.
  if (process.env.REIN_CODE_CACHE) env.REIN_CODE_CACHE = process.env.REIN_CODE_CACHE;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export function startRein(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; stdin?: string },
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [REIN_BIN, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  else child.stdin!.end();
  const done = new Promise<CliResult>((ok) => child.on('close', (code) => ok({ code, stdout, stderr })));
  return { child, done };
}

export function rein(
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; stdin?: string },
): Promise<CliResult> {
  return startRein(args, opts).done;
}

export function events(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/**
 * What every CLI integration test starts from: a fake Messages API, a temp REIN_HOME and working
 * folder, and an environment that points `rein` at them. The test closes `fake` when done.
 */
export async function cliWorld(): Promise<{ fake: FakeAnthropic; home: string; cwd: string; env: NodeJS.ProcessEnv }> {
  const fake = await startFakeAnthropic();
  const { home, cwd } = await tempHome();
  return {
    fake,
    home,
    cwd,
    env: cleanEnv({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, REIN_HOME: home }),
  };
}
