/**
 * How a `rein` command with a run in flight stops (cli/stopSignals.ts): the first SIGTERM, SIGINT or
 * SIGHUP aborts its signal, later ones never end the process sooner — even with signal-exit loaded (the
 * schedule store's lock brings it), which re-raises a signal it finds nobody else listening to — and a
 * command that does not finish is ended at the deadline, after its cleanups.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestStop, stopOnSignals } from '../../../src-main/cli/stopSignals.js';

const CHILD = join(import.meta.dirname, '..', '..', 'fixtures', 'cli', 'stopChild.ts');

/** Starts the child, resolves once it is ready (its lock taken, its handlers installed). */
async function child(mode: 'switch' | 'once' | 'hang') {
  const dir = await mkdtemp(join(tmpdir(), 'rein-stop-'));
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) =>
    proc.on('exit', (code, signal) => ok({ code, signal })),
  );
  await new Promise<void>((ok, bad) => {
    proc.stdout.setEncoding('utf8').on('data', (d: string) => d.includes('ready') && ok());
    proc.on('exit', () => bad(new Error(`the child ended before it was ready: ${stderr}`)));
  });
  return { proc, dir, exited };
}

describe('stopOnSignals in a real process with signal-exit loaded', () => {
  it('two SIGTERMs in a row: the run still saves and the process exits on its own', async () => {
    const c = await child('switch');
    c.proc.kill('SIGTERM');
    // Apart, so the kernel does not merge them into one; the child's "save" takes longer than this.
    await new Promise((r) => setTimeout(r, 20));
    c.proc.kill('SIGTERM');
    expect(await c.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(c.dir, 'saved'))).toBe(true);
  });

  it('(the naive process.once handler is gone by the second signal: signal-exit re-raises it and the process dies unsaved)', async () => {
    const c = await child('once');
    c.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 20));
    c.proc.kill('SIGTERM');
    expect(await c.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(existsSync(join(c.dir, 'saved'))).toBe(false);
  });

  it('a command that does not finish is ended at the deadline, after its cleanups, with 128 + the signal', async () => {
    const c = await child('hang');
    c.proc.kill('SIGHUP');
    expect(await c.exited).toEqual({ code: 129, signal: null });
    expect(existsSync(join(c.dir, 'cleaned'))).toBe(true);
  });
});

describe('stopOnSignals', () => {
  const fakeProcess = () => {
    const ee = new EventEmitter();
    return { ee, proc: { on: ee.on.bind(ee), off: ee.off.bind(ee) } as unknown as Pick<NodeJS.Process, 'on' | 'off'> };
  };

  it('aborts at the first signal, says which, and ignores the next ones', () => {
    const { ee, proc } = fakeProcess();
    const exits: number[] = [];
    const lines: string[] = [];
    const stop = stopOnSignals({
      process: proc,
      exit: (c) => void exits.push(c),
      stderr: { write: (s: string) => lines.push(s) },
      deadlineMs: 60_000,
    });
    expect(stop.signal.aborted).toBe(false);
    ee.emit('SIGTERM');
    ee.emit('SIGTERM');
    ee.emit('SIGINT');
    expect(stop.signal.aborted).toBe(true);
    expect((stop.signal.reason as Error).message).toBe('stopped by SIGTERM');
    expect(stop.stoppedBy).toBe('SIGTERM');
    expect(stop.exitCode).toBe(143);
    expect(exits).toEqual([]);
    expect(lines).toHaveLength(1);
    stop.dispose();
    // Once a stop began the listeners stay, so signal-exit never finds itself alone.
    expect(ee.listenerCount('SIGTERM')).toBe(1);
  });

  it('a second Ctrl-C quits at once where a person asked for it', () => {
    const { ee, proc } = fakeProcess();
    const exits: number[] = [];
    const stop = stopOnSignals({
      process: proc,
      exit: (c) => void exits.push(c),
      forceOnSecondInterrupt: true,
      deadlineMs: 60_000,
    });
    ee.emit('SIGINT');
    expect(exits).toEqual([]);
    ee.emit('SIGTERM');
    expect(exits).toEqual([]);
    ee.emit('SIGINT');
    expect(exits).toEqual([130]);
    stop.dispose();
  });

  it('takes its listeners away when disposed unstopped; the app’s quit stops an active one', () => {
    const { ee, proc } = fakeProcess();
    const idle = stopOnSignals({ process: proc });
    expect(['SIGTERM', 'SIGINT', 'SIGHUP'].map((s) => ee.listenerCount(s))).toEqual([1, 1, 1]);
    idle.dispose();
    expect(['SIGTERM', 'SIGINT', 'SIGHUP'].map((s) => ee.listenerCount(s))).toEqual([0, 0, 0]);
    expect(requestStop()).toBe(false);
    const running = stopOnSignals({ process: proc, exit: () => undefined, deadlineMs: 60_000 });
    expect(requestStop()).toBe(true);
    expect(running.signal.aborted).toBe(true);
    expect(running.stoppedBy).toBe('quit');
    expect(running.exitCode).toBe(143);
    running.dispose();
  });
});
