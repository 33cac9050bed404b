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
if (!hasScript && process.env.CI === 'true') throw new Error('CI needs util-linux `script` for the terminal approval tests');

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
    expect(JSON.parse(readFileSync(join(dir, file), 'utf8')).context.approvals).toEqual({ grants: ['tool:file_write'] });
  });

  it('a ("always") saves the exact command to allowed_commands, keeping comments, and the next run does not ask', async () => {
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
    expect(config).toMatch(/allowed_commands:[\s\S]*touch always.txt/);
    fake.enqueue(tools([toolCall('bash', { command: 'touch always.txt' })]), text('Again.'));
    const second = await runInTerminal('touch it again', 'n', dirs);
    expect(second.answered).toBe(false);
    expect(second.code).toBe(0);
  });

  it('n at the prompt denies it and the model hears so', async () => {
    fake.enqueue(tools([toolCall('file_write', { path: 'denied.txt', content: 'no\n' })]), text('Not written.'));
    const { code, cwd } = await runInTerminal('write denied.txt', 'n');
    expect(code).toBe(0);
    expect(existsSync(join(cwd, 'denied.txt'))).toBe(false);
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('DENIED');
  });
});
