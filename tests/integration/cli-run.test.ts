import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cleanEnv, cliWorld, events, rein, startRein } from '../support/cli.js';

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

const sessionFiles = () => {
  const dir = join(home, 'sessions');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
};

describe('rein run (end to end through the real CLI)', () => {
  it('streams the answer on stdout, exits 0 and saves the session', async () => {
    fake.enqueue(text('Three files here.'));
    const r = await rein(['run', 'count the files'], { env, cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Three files here.\n');
    expect(sessionFiles()).toHaveLength(1);
    const body = fake.requests[0]!.body;
    expect(JSON.stringify(body.messages)).toContain('count the files');
    expect(body.tools!.map((t) => t.name)).toEqual([...body.tools!.map((t) => t.name)].sort());
  });

  it('reads the prompt from stdin', async () => {
    fake.enqueue(text('ok'));
    const r = await rein(['run'], { env, cwd, stdin: 'summarise this please\n' });
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain('summarise this please');
  });

  it('runs parallel file reads and feeds the numbered contents back', async () => {
    await writeFile(join(cwd, 'a.txt'), 'alpha\n');
    await writeFile(join(cwd, 'b.txt'), 'beta\n');
    await writeFile(join(cwd, 'c.txt'), 'gamma\n');
    fake.enqueue(
      tools([
        toolCall('file_read', { path: 'a.txt' }),
        toolCall('file_read', { path: 'b.txt' }),
        toolCall('file_read', { path: 'c.txt' }),
      ]),
      text('alpha beta gamma'),
    );
    const r = await rein(['run', '--json', 'read the three files'], { env, cwd });
    expect(r.code).toBe(0);
    const evs = events(r.stdout);
    const starts = evs.filter((e) => e.type === 'tool_call_start').map((e) => e.seq);
    const ends = evs.filter((e) => e.type === 'tool_call_end').map((e) => e.seq);
    // all three started before the first finished: one parallel batch
    expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));
    const results = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
    expect(results).toMatch(/1 \| alpha[\s\S]*1 \| beta[\s\S]*1 \| gamma/);
    expect(evs.every((e) => typeof e.session_id === 'string' && typeof e.seq === 'number')).toBe(true);
    expect(evs.at(-1)).toMatchObject({ type: 'session_end', stop_reason: 'final' });
  });

  it('runs a write after approval with --yes', async () => {
    fake.enqueue(
      tools([toolCall('file_write', { path: 'out.txt', content: 'written by rein\n' })]),
      text('Wrote out.txt.'),
    );
    const r = await rein(['run', '--yes', 'write a file'], { env, cwd });
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('written by rein\n');
    expect(r.stderr).toContain('file_write');
  });

  it('denies a write when there is no terminal to ask, and tells the model', async () => {
    fake.enqueue(tools([toolCall('bash', { command: 'touch made-by-bash' })]), text('It was denied.'));
    const r = await rein(['run', '--json', 'make a file'], { env, cwd });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'made-by-bash'))).toBe(false);
    const evs = events(r.stdout);
    expect(evs.find((e) => e.type === 'approval_response')).toMatchObject({ decision: 'deny', by: 'no-terminal' });
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('DENIED');
  });

  it('retries a 529 and a cut stream, and the answer is shown once', async () => {
    const answer = 'A stable answer after some trouble.';
    fake.enqueue(
      { kind: 'error', status: 529 },
      { kind: 'cut', content: [{ type: 'text', text: answer }], afterTextChars: 10 },
      text(answer),
    );
    const r = await rein(['run', 'hello'], { env, cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${answer}\n`);
    expect(r.stderr).toMatch(/overloaded.*retrying \(attempt 2\/3\)/);
    expect(fake.requests).toHaveLength(3);
  });

  it('continues after max_tokens', async () => {
    fake.enqueue(text('first half, ', { stopReason: 'max_tokens' }), text('second half.'));
    const r = await rein(['run', 'long answer'], { env, cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('first half, second half.\n');
  });

  it('stops at the spending cap with a clear message and exit 1', async () => {
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, 'config.yaml'),
      'budget:\n  max_usd_per_run: 0.001\nprices:\n  claude-sonnet-5-5: { input: 500, output: 500 }\n',
    );
    fake.fallback = () => tools([toolCall('think', { thought: 'hmm' })]);
    const r = await rein(['run', 'loop forever'], { env, cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Spending cap reached.*max_usd_per_run/);
    expect(fake.requests).toHaveLength(1);
  });

  it('cancels on SIGINT: exit 1, the session file is intact', async () => {
    fake.enqueue({ kind: 'stall' });
    const { child, done } = startRein(['run', 'wait'], { env, cwd });
    for (let i = 0; i < 100 && fake.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(cancelled)');
    const [file] = sessionFiles();
    const saved = JSON.parse(readFileSync(join(home, 'sessions', file!), 'utf8'));
    expect(saved.messages[0].role).toBe('user');
  });

  it('without an API key prints one line naming ANTHROPIC_API_KEY and the config file, exit 2', async () => {
    const r = await rein(['run', 'hi'], { env: cleanEnv({ REIN_HOME: home }), cwd });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('ANTHROPIC_API_KEY');
    expect(r.stderr).toContain(join(home, 'config.yaml'));
  });

  it('names file, line and field of a malformed config and leaves it untouched', async () => {
    await mkdir(home, { recursive: true });
    const bad = 'model: claude-sonnet-5-5\npermissions:\n  mode: yolo\n';
    await writeFile(join(home, 'config.yaml'), bad);
    const r = await rein(['run', 'hi'], { env, cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(home, 'config.yaml')}:3`);
    expect(r.stderr).toContain('permissions.mode');
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(bad);
  });

  it('continues a session with --session', async () => {
    fake.enqueue(text('first'));
    await rein(['run', 'remember 42'], { env, cwd });
    const id = sessionFiles()[0]!.replace(/\.json$/, '');
    fake.enqueue(text('it was 42'));
    const r = await rein(['run', '--session', id, 'what number?'], { env, cwd });
    expect(r.code).toBe(0);
    const sent = JSON.stringify(fake.requests[1]!.body.messages);
    expect(sent).toContain('remember 42');
    expect(sent).toContain('what number?');
    expect(sessionFiles()).toHaveLength(1);
  });

  it('answers bad usage with exit 2', async () => {
    expect((await rein(['run', '--mode', 'chaos', 'x'], { env, cwd })).code).toBe(2);
    expect((await rein(['run', '--session', '../../etc/passwd', 'x'], { env, cwd })).code).toBe(2);
    expect((await rein(['frobnicate'], { env, cwd })).code).toBe(2);
    const help = await rein(['--help'], { env, cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('rein run');
    expect((await rein(['--version'], { env, cwd })).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
