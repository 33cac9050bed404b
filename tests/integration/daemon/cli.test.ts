/**
 * `rein daemon` as real child processes: start, status, stop, the single-instance lock (exit 3), a
 * stale lock after a crash, token rotation, and SIGTERM in the middle of a run (the session file
 * stays valid and the daemon removes its files).
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import { cleanEnv, rein, startRein, tempHome } from '../../support/cli.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { eventually, sse } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic | undefined;
const children: ReturnType<typeof startRein>[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await c.done;
  }
  await fake?.close();
  fake = undefined;
});

async function startDaemonProcess(home: string, cwd: string, env: Record<string, string> = {}) {
  fake ??= await startFakeAnthropic();
  const e = cleanEnv({ REIN_HOME: home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test-key', ...env });
  const proc = startRein(['daemon', '--port', '0', '--cwd', cwd], { env: e, cwd });
  children.push(proc);
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    proc.child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void proc.done.then((r) => reject(new Error(`daemon exited early (${r.code}): ${r.stderr}`)));
  });
  const info = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')) as {
    token: string;
    pid: number;
    port: number;
  };
  return { proc, port, token: info.token, info, env: e, stdout: () => out };
}

describe('rein daemon (child processes)', () => {
  it('serves the built web UI at / without a token and prints its address with the token', async () => {
    const { home, cwd } = await tempHome();
    const d = await startDaemonProcess(home, cwd);
    const line = await eventually(() => /^Web UI: .*$/m.exec(d.stdout())?.[0]);
    expect(line).toBe(`Web UI: http://127.0.0.1:${d.port}/#token=${d.token}`);
    const page = await fetch(`http://127.0.0.1:${d.port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"></div>');
    expect(page.headers.get('content-security-policy')).toContain(`ws://127.0.0.1:${d.port}`);
    // The page is public; the API behind it is not.
    expect((await fetch(`http://127.0.0.1:${d.port}/status`)).status).toBe(401);
  });

  it('starts, reports status, refuses a second daemon on the same home with exit code 3, and stops', async () => {
    const { home, cwd } = await tempHome();
    const d = await startDaemonProcess(home, cwd);
    expect(d.info.pid).toBe(d.proc.child.pid);
    expect(d.info.port).toBe(d.port);
    expect((await stat(join(home, 'daemon.json'))).mode & 0o777).toBe(0o600);

    const status = await rein(['daemon', 'status'], { env: d.env, cwd });
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toContain(`pid ${d.info.pid}`);
    const json = await rein(['daemon', 'status', '--json'], { env: d.env, cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ running: true, port: d.port, active_runs: 0 });

    const second = await rein(['daemon', '--port', '0'], { env: d.env, cwd });
    expect(second.code, second.stdout + second.stderr).toBe(3);
    expect(second.stderr).toContain(`pid ${d.info.pid}`);
    expect(second.stderr).toContain('already runs');

    const stop = await rein(['daemon', 'stop'], { env: d.env, cwd });
    expect(stop.code).toBe(0);
    expect((await d.proc.done).code).toBe(0);
    await expect(stat(join(home, 'daemon.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(home, 'daemon.pid'))).rejects.toMatchObject({ code: 'ENOENT' });

    const after = await rein(['daemon', 'status'], { env: d.env, cwd });
    expect(after.code).toBe(1);
    expect(after.stdout).toContain('not running');
  });

  it('takes over a stale lock left by a process that died', async () => {
    const { home, cwd } = await tempHome();
    await mkdir(home, { recursive: true });
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = dead.pid!;
    await new Promise((ok) => dead.on('exit', ok));
    await writeFile(join(home, 'daemon.pid'), `${deadPid}\n`);
    const d = await startDaemonProcess(home, cwd);
    expect((await readFile(join(home, 'daemon.pid'), 'utf8')).trim()).toBe(String(d.proc.child.pid));
    d.proc.child.kill('SIGTERM');
    expect((await d.proc.done).code).toBe(0);
  });

  it('rotates the token of a running daemon', async () => {
    const { home, cwd } = await tempHome();
    const d = await startDaemonProcess(home, cwd);
    const res = await rein(['daemon', 'rotate-token'], { env: d.env, cwd });
    expect(res.code).toBe(0);
    const next = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')).token;
    expect(next).not.toBe(d.token);
    expect((await readFile(join(home, 'daemon.token'), 'utf8')).trim()).toBe(next);
    const old = await fetch(`http://127.0.0.1:${d.port}/status`, { headers: { authorization: `Bearer ${d.token}` } });
    expect(old.status).toBe(401);
    d.proc.child.kill('SIGTERM');
    await d.proc.done;
  });

  it('on SIGTERM mid-run cancels the run, saves a valid session, and removes daemon.json', async () => {
    const { home, cwd } = await tempHome();
    const d = await startDaemonProcess(home, cwd);
    fake!.enqueue({ kind: 'stall' });
    const stream = await sse({ port: d.port, token: d.token }, 'POST', '/message', {
      body: { text: 'a long task', source: 'slack', channel: 'C1' },
    });
    const start = await stream.next((f) => f.event === 'session_start');
    await eventually(() => fake!.requests.length === 1);

    d.proc.child.kill('SIGTERM');
    const frames = await stream.untilEnd();
    expect(frames.find((f) => f.event === 'session_end')?.data.stop_reason).toBe('cancelled');
    const exit = await d.proc.done;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('SIGTERM');

    const session = await new SessionStore(join(home, 'sessions')).load(start.data.session_id);
    expect(session.channel).toBe('C1');
    expect(JSON.stringify(session.messages)).toContain('a long task');
    await expect(stat(join(home, 'daemon.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('prints usage errors with exit code 2', async () => {
    const { home, cwd } = await tempHome();
    const env = cleanEnv({ REIN_HOME: home });
    expect((await rein(['daemon', '--port', 'abc'], { env, cwd })).code).toBe(2);
    expect((await rein(['daemon', 'restart'], { env, cwd })).code).toBe(2);
    const help = await rein(['daemon', '--help'], { env, cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('rotate-token');
  });
});
