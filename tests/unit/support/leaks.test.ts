import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leakedSince, snapshotResources, useLeakCheck, waitForLeaks } from '../../support/leaks.js';

// The helper checks its own tests too: each one below must clean up what it leaked on purpose.
useLeakCheck();

let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-leaks-'));
  env = { ...process.env, HOME: home, REIN_HOME: join(home, '.rein') };
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = once(child, 'close');
  child.kill('SIGKILL');
  await closed;
}

describe('leak check', () => {
  it.each([false, true])(
    'names a child process left running (detached: %s), with its command line',
    async (detached) => {
      const before = snapshotResources();
      const child = spawn('sleep', ['30'], { detached, env, stdio: 'ignore' });
      try {
        await once(child, 'spawn');
        const report = leakedSince(before);
        expect(report.processes).toEqual([
          expect.objectContaining({ pid: child.pid, ppid: process.pid, command: 'sleep 30' }),
        ]);
        expect(report.message).toContain(`process ${child.pid}`);
        expect(report.message).toContain('sleep 30');
        expect(report.handles).toContainEqual(expect.objectContaining({ kind: 'ProcessWrap' }));
        expect(report.message).toMatch(/handle ProcessWrap: \d+ before, \d+ after/);
      } finally {
        await stop(child);
      }
      expect((await waitForLeaks(before)).message).toBe('');
    },
  );

  it('reports nothing after a test that cleaned up after itself', async () => {
    const before = snapshotResources();
    const child = spawn('true', [], { env });
    await once(child, 'close');
    const timer = setTimeout(() => undefined, 10_000);
    clearTimeout(timer);
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    await new Promise<void>((ok) => server.close(() => ok()));
    expect(await waitForLeaks(before)).toEqual({ processes: [], handles: [], message: '' });
  });

  it('names a server left listening, and a pending timer', async () => {
    const before = snapshotResources();
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const timer = setTimeout(() => undefined, 30_000);
    try {
      const report = leakedSince(before);
      expect(report.handles).toContainEqual({
        kind: 'TCPServerWrap',
        before: before.handles.get('TCPServerWrap') ?? 0,
        after: (before.handles.get('TCPServerWrap') ?? 0) + 1,
      });
      expect(report.message).toMatch(/handle TCPServerWrap: \d+ before, \d+ after \(\+1\)/);
      expect(report.handles.map((h) => h.kind)).toContain('Timeout');
      expect(report.processes).toEqual([]);
      // Kinds the caller says it keeps on purpose are not counted.
      expect(leakedSince(before, { ignoreHandles: ['TCPServerWrap', 'Timeout'] }).message).toBe('');
    } finally {
      clearTimeout(timer);
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });

  it.skipIf(process.platform !== 'linux')(
    'finds a background job whose shell exited (reparented away from us)',
    async () => {
      const before = snapshotResources();
      const shell = spawn('bash', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], {
        env,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      shell.stdout!.on('data', (b: Buffer) => (out += b.toString()));
      await once(shell, 'close');
      const orphan = Number(out.trim());
      try {
        const report = await waitForLeaks(before, { settleMs: 200 });
        expect(report.processes.map((p) => p.pid)).toContain(orphan);
      } finally {
        process.kill(orphan, 'SIGKILL');
      }
      expect((await waitForLeaks(before)).processes).toEqual([]);
    },
  );
});
