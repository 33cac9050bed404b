import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DisposableStore } from '../../../src-main/core/base/lifecycle.js';
import { killProcessGroup, processGroupAlive } from '../../../src-main/core/process/processGroup.js';
import { ByteCappedText, runProcess, startProcess } from '../../../src-main/core/process/subprocess.js';
import { HeadTailBuffer } from '../../../src-main/core/tools/builtin/support/outputLimit.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-subprocess-'));
  // Every shell here gets a throwaway home, so nothing it does can touch the real one.
  await mkdir(join(dir, 'home', '.rein'), { recursive: true });
  env = { ...process.env, HOME: join(dir, 'home'), REIN_HOME: join(dir, 'home', '.rein') };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bash = (script: string) => ({ file: 'bash', args: ['-c', script], cwd: dir, env });

async function waitForNumber(path: string): Promise<number> {
  for (let n = 0; n < 400; n++) {
    if (existsSync(path)) {
      const text = (await readFile(path, 'utf8')).trim();
      if (text) return Number(text);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${path} never appeared`);
}

/** A killed process whose new parent never reaps it stays a zombie: dead, though kill(pid, 0) still succeeds. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('runProcess', () => {
  it('reports the exit code and keeps stdout and stderr apart', async () => {
    const r = await runProcess({ ...bash('echo out; echo err >&2; exit 3'), timeoutMs: 10_000 });
    expect(r).toMatchObject({ kind: 'exited', exitCode: 3, exitSignal: null, stdout: 'out\n', stderr: 'err\n' });
    expect(r.stdoutTruncated).toBe(false);
  });

  it('runs the file with its arguments as given, without a shell', async () => {
    const r = await runProcess({
      file: 'printf',
      args: ['%s|', 'a b', '$HOME', '*'],
      cwd: dir,
      env,
      timeoutMs: 10_000,
    });
    expect(r.kind).toBe('exited');
    expect(r.stdout).toBe('a b|$HOME|*|');
  });

  it('delivers the stdin text and closes it', async () => {
    const r = await runProcess({ file: 'cat', cwd: dir, env, stdin: 'héllo\nwörld', timeoutMs: 10_000 });
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0, stdout: 'héllo\nwörld' });
  });

  it('leaves stdin unconnected when no text is given, so a reader sees end of input at once', async () => {
    const r = await runProcess({ ...bash('cat; echo done'), timeoutMs: 10_000 });
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0, stdout: 'done\n' });
  });

  it('caps stdout and stderr separately, cutting before a character rather than through it', async () => {
    const r = await runProcess({
      ...bash(`head -c 5000 /dev/zero | tr '\\0' a; for i in $(seq 600); do printf 'é' >&2; done`),
      timeoutMs: 10_000,
      output: { mode: 'separate', stdoutMaxBytes: 1000, stderrMaxBytes: 1001 },
    });
    expect(r.stdout).toBe('a'.repeat(1000));
    expect(r.stdoutTruncated).toBe(true);
    // 1001 bytes would end half-way through the 501st 'é' (2 bytes each).
    expect(r.stderr).toBe('é'.repeat(500));
    expect(r.stderrTruncated).toBe(true);
  });

  it('decodes a character whose bytes arrive in separate writes', async () => {
    const r = await runProcess({ ...bash(`printf '\\xc3'; sleep 0.2; printf '\\xa9'`), timeoutMs: 10_000 });
    expect(r.stdout).toBe('é');
  });

  it('combines stdout and stderr into the caller’s head-and-tail buffer', async () => {
    const r = await runProcess({
      ...bash(`echo to-out; echo to-err >&2; head -c 1000 /dev/zero | tr '\\0' x; printf END`),
      timeoutMs: 10_000,
      output: { mode: 'combined', into: new HeadTailBuffer(100) },
    });
    expect(r.kind).toBe('exited');
    expect(r.truncated).toBe(true);
    expect(r.output.startsWith('to-out\n')).toBe(true);
    expect(r.output).toContain('to-err');
    expect(r.output.endsWith('xxxEND')).toBe(true);
    expect(r.output).toMatch(/chars truncated/);
  });

  it('on timeout SIGTERMs the whole group and resolves only once it is gone, grandchildren included', async () => {
    const r = await runProcess({
      ...bash(`echo $$ > pgid; sleep 300 & echo $! > grandchild; echo started; wait`),
      timeoutMs: 300,
    });
    const pgid = await waitForNumber(join(dir, 'pgid'));
    const grandchild = await waitForNumber(join(dir, 'grandchild'));
    expect(r).toMatchObject({ kind: 'timed_out', exitCode: null, exitSignal: 'SIGTERM', stdout: 'started\n' });
    expect(processGroupAlive(pgid)).toBe(false);
    expect(alive(grandchild)).toBe(false);
  });

  it('is cancelled through the AbortSignal, killing the group', async () => {
    const ctrl = new AbortController();
    const pending = runProcess({ ...bash(`echo $$ > pgid; sleep 300 & wait`), signal: ctrl.signal, timeoutMs: 60_000 });
    const pgid = await waitForNumber(join(dir, 'pgid'));
    expect(processGroupAlive(pgid)).toBe(true);
    ctrl.abort();
    const r = await pending;
    expect(r.kind).toBe('cancelled');
    expect(processGroupAlive(pgid)).toBe(false);
  });

  it('starts nothing when the signal is already aborted', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const r = await runProcess({ ...bash(`touch ran`), signal: ctrl.signal });
    expect(r).toMatchObject({ kind: 'cancelled', exitCode: null, stdout: '' });
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const r = await runProcess({
      ...bash(`trap '' TERM; echo $$ > pgid; while :; do sleep 0.05; done`),
      timeoutMs: 300,
      killGraceMs: 300,
    });
    const pgid = await waitForNumber(join(dir, 'pgid'));
    expect(r).toMatchObject({ kind: 'timed_out', exitSignal: 'SIGKILL' });
    expect(processGroupAlive(pgid)).toBe(false);
  });

  it('does not wait for ever on pipes a background job keeps open after the leader exits', async () => {
    const r = await runProcess({
      ...bash(`echo $$ > pgid; sleep 300 & echo started`),
      timeoutMs: 60_000,
      stdioGraceMs: 100,
    });
    const pgid = await waitForNumber(join(dir, 'pgid'));
    try {
      expect(r).toMatchObject({ kind: 'exited', exitCode: 0, stdout: 'started\n' });
      // Only a timeout or abort kills the group; the job is still there for its owner to deal with.
      expect(processGroupAlive(pgid)).toBe(true);
    } finally {
      await killProcessGroup(pgid, 200);
    }
  });

  it('kills a group still holding the pipes after the leader exited when asked to', async () => {
    const r = await runProcess({
      ...bash(`echo $$ > pgid; sleep 300 & echo started`),
      timeoutMs: 60_000,
      stdioGraceMs: 100,
      killGraceMs: 500,
      lingering: 'kill',
    });
    const pgid = await waitForNumber(join(dir, 'pgid'));
    expect(r).toMatchObject({ kind: 'exited', exitCode: 0, stdout: 'started\n' });
    expect(processGroupAlive(pgid)).toBe(false);
  });

  it('reports a missing executable as spawn_failed instead of throwing', async () => {
    const r = await runProcess({ file: join(dir, 'no-such-program'), cwd: dir, env, timeoutMs: 10_000 });
    expect(r.kind).toBe('spawn_failed');
    if (r.kind !== 'spawn_failed') return;
    expect((r.error as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(r.exitCode).toBeNull();
  });

  it('reports a missing working folder as spawn_failed', async () => {
    const r = await runProcess({ ...bash('true'), cwd: join(dir, 'missing'), stdin: '{}' });
    expect(r.kind).toBe('spawn_failed');
  });
});

describe('ByteCappedText', () => {
  it('never keeps half a character, even for four-byte ones', () => {
    const t = new ByteCappedText(6);
    t.push('ab😀'); // 2 + 4 bytes: fits exactly
    t.push('c');
    expect(t.toString()).toBe('ab😀');
    const u = new ByteCappedText(5);
    u.push('ab😀');
    expect(u.toString()).toBe('ab');
    expect(u.truncated).toBe(true);
  });
});

describe('startProcess', () => {
  it('exposes the pipes, and a DisposableStore ends it politely by closing stdin', async () => {
    const store = new DisposableStore();
    const handle = store.add(startProcess({ file: 'cat', cwd: dir, env }));
    expect(await handle.started).toMatchObject({ ok: true });
    expect(handle.alive).toBe(true);
    handle.stdout.setEncoding('utf8');
    const echoed = new Promise<string>((resolve) => handle.stdout.once('data', (s: string) => resolve(s)));
    handle.stdin.write('ping\n');
    expect(await echoed).toBe('ping\n');
    await store.disposeAsync();
    // cat exits 0 at end of input: no signal was needed.
    expect(await handle.exited).toEqual({ kind: 'exited', exitCode: 0, exitSignal: null });
    expect(handle.alive).toBe(false);
  });

  it('takes down what the leader started when the leader leaves at end of input', async () => {
    const store = new DisposableStore();
    const handle = store.add(startProcess({ ...bash(`sleep 300 & echo $! > grandchild; cat`), killGraceMs: 500 }));
    const grandchild = await waitForNumber(join(dir, 'grandchild'));
    const pgid = (await handle.started).ok ? handle.child.pid! : -1;
    store.dispose(); // synchronous: starts the teardown
    await handle.dispose(); // the same teardown, awaited
    expect(alive(grandchild)).toBe(false);
    expect(processGroupAlive(pgid)).toBe(false);
  });

  it('escalates from SIGTERM to SIGKILL for a child that ignores both end of input and SIGTERM', async () => {
    const handle = startProcess({
      ...bash(`trap '' TERM; while :; do sleep 0.05; done`),
      closeGraceMs: 100,
      killGraceMs: 200,
    });
    await handle.started;
    const pgid = handle.child.pid!;
    await handle.dispose();
    expect(await handle.exited).toMatchObject({ kind: 'exited', exitSignal: 'SIGKILL' });
    expect(processGroupAlive(pgid)).toBe(false);
  });

  it('kill() signals the whole group', async () => {
    const handle = startProcess({ ...bash(`sleep 300 & echo $! > grandchild; wait`) });
    const grandchild = await waitForNumber(join(dir, 'grandchild'));
    expect(handle.kill('SIGKILL')).toBe(true);
    expect(await handle.exited).toMatchObject({ kind: 'exited', exitSignal: 'SIGKILL' });
    await handle.dispose();
    expect(alive(grandchild)).toBe(false);
    expect(handle.kill()).toBe(false);
  });

  it('reports a missing executable through started and exited, and disposes cleanly', async () => {
    const handle = startProcess({ file: join(dir, 'no-such-server'), cwd: dir, env });
    const started = await handle.started;
    expect(started.ok).toBe(false);
    expect(await handle.exited).toMatchObject({ kind: 'spawn_failed' });
    expect(handle.alive).toBe(false);
    await handle.dispose();
  });
});
