/**
 * The terminal face for real: `script` gives the CLI a pseudo-terminal, the test types the answer at
 * the approval prompt like a person would.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cleanEnv, REIN_BIN, tempHome } from '../support/cli.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript && process.env.CI === 'true')
  throw new Error('CI needs util-linux `script` for the terminal approval tests');

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

async function runInTerminal(prompt: string, answer: string, dirs?: { home: string; cwd: string }) {
  const { home, cwd } = dirs ?? (await tempHome());
  const env = cleanEnv({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: fake.url, REIN_HOME: home, TERM: 'dumb' });
  const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(REIN_BIN)} run ${JSON.stringify(prompt)}`;
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let answered = false;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    screen += d;
    if (!answered && screen.includes('Allow?')) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  return { code, screen, cwd, home, answered };
}

describe.skipIf(!hasScript)('approval at the terminal (pseudo-terminal via script)', () => {
  it('y at the prompt runs the write', async () => {
    fake.enqueue(tools([toolCall('file_write', { path: 'approved.txt', content: 'yes\n' })]), text('Written.'));
    const { code, screen, cwd } = await runInTerminal('write approved.txt', 'y');
    expect(screen).toContain('[approval] file_write');
    expect(code).toBe(0);
    expect(readFileSync(join(cwd, 'approved.txt'), 'utf8')).toBe('yes\n');
  });

  it('s ("session") runs the write and keeps the grant in the session, not in config.yaml', async () => {
    fake.enqueue(tools([toolCall('file_write', { path: 'session.txt', content: 'ok\n' })]), text('Written.'));
    const { code, screen, cwd, home } = await runInTerminal('write session.txt', 's');
    expect(screen).toContain('[s]ession (this conversation)');
    expect(code).toBe(0);
    expect(readFileSync(join(cwd, 'session.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(join(home, 'config.yaml'))).toBe(false);
    const { readdirSync } = await import('node:fs');
    const dir = join(home, 'sessions');
    const file = readdirSync(dir).find((n) => n.endsWith('.json'))!;
    // The grant is that one path, signed with Rein's own key (secrets/grants.key).
    const grants = JSON.parse(readFileSync(join(dir, file), 'utf8')).context.approvals.grants as string[];
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatch(/^v2:[0-9a-f]{64}:/);
    expect(JSON.parse(grants[0]!.slice(68))).toEqual({ tool: 'file_write', path: join(cwd, 'session.txt') });
    expect(existsSync(join(home, 'secrets', 'grants.key'))).toBe(true);
  });

  it('a ("always") saves the exact command in its folder to permissions.grants, keeping comments, and the next run there does not ask', async () => {
    const dirs = await tempHome();
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(dirs.home, { recursive: true });
    await writeFile(join(dirs.home, 'config.yaml'), '# my settings\nmax_iterations: 10 # keep runs short\n');
    fake.enqueue(tools([toolCall('bash', { command: 'touch always.txt' })]), text('Touched.'));
    const first = await runInTerminal('touch it', 'a', dirs);
    expect(first.code).toBe(0);
    const config = readFileSync(join(dirs.home, 'config.yaml'), 'utf8');
    expect(config).toContain('# my settings');
    expect(config).toContain('# keep runs short');
    expect(config).toMatch(/grants:[\s\S]*command: touch always.txt[\s\S]*cwd: /);
    expect(config).not.toMatch(/allowed_commands/);
    fake.enqueue(tools([toolCall('bash', { command: 'touch always.txt' })]), text('Again.'));
    const second = await runInTerminal('touch it again', 'n', dirs);
    expect(second.answered).toBe(false);
    expect(second.code).toBe(0);
  });

  it('shows a command’s ESC and CR as visible escapes: the prompt cannot be painted over with another command', async () => {
    // Cursor up, erase the line, back to its start, then a harmless-looking `ls`: raw, the terminal
    // would show only `ls` where the real command was.
    fake.enqueue(tools([toolCall('bash', { command: 'touch hidden.txt\x1b[1A\x1b[2K\rls' })]), text('Not run.'));
    const { code, screen, cwd, answered } = await runInTerminal('list files', 'n');
    expect(answered).toBe(true);
    expect(code).toBe(0);
    expect(screen).toContain('[approval] bash: $ touch hidden.txt\\x1b[1A\\x1b[2K\\rls');
    expect(screen).not.toContain('\x1b[1A\x1b[2K');
    expect(existsSync(join(cwd, 'hidden.txt'))).toBe(false);
  });

  it('n at the prompt denies it and the model hears so', async () => {
    fake.enqueue(tools([toolCall('file_write', { path: 'denied.txt', content: 'no\n' })]), text('Not written.'));
    const { code, cwd } = await runInTerminal('write denied.txt', 'n');
    expect(code).toBe(0);
    expect(existsSync(join(cwd, 'denied.txt'))).toBe(false);
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('DENIED');
  });
});
