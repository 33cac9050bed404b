/** System notifications without a window: the program and its arguments per platform, one at a time, bursts dropped. */
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isNotifier,
  systemNotifier,
  type RunProgram,
  type SystemNotifier,
} from '../../../src-main/core/notify/systemNotifier.js';

function recorder() {
  const calls: { file: string; args: readonly string[] }[] = [];
  const run: RunProgram = async (file, args) => {
    calls.push({ file, args });
  };
  return { calls, run };
}

const notifier = (n: SystemNotifier | { why: string }): SystemNotifier => {
  if (!isNotifier(n)) throw new Error(`expected a notifier, got: ${n.why}`);
  return n;
};

describe('systemNotifier', () => {
  it('macOS: osascript gets title and body as arguments of the script, never inside its text', async () => {
    const { calls, run } = recorder();
    const n = notifier(systemNotifier({ platform: 'darwin', env: { PATH: '' }, run }));
    const hostile = 'done" with title "x\nend run\ndo shell script "echo pwned';
    await n.show({ title: 'ops: schedule 1a2b3c4d finished', body: hostile });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.file).toBe('/usr/bin/osascript');
    const args = calls[0]!.args;
    const script = args.filter((_, i) => args[i - 1] === '-e');
    expect(script).toEqual([
      'on run argv',
      'display notification (item 2 of argv) with title (item 1 of argv)',
      'end run',
    ]);
    expect(script.join('\n')).not.toContain('pwned');
    // The last two arguments are the words, the newlines of the body turned into spaces.
    expect(args.slice(-2)).toEqual([
      'ops: schedule 1a2b3c4d finished',
      'done" with title "x end run do shell script "echo pwned',
    ]);
  });

  it('Linux: notify-send from the PATH, options ended before the words; none without it, saying how to get it', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'rein-notify-bin-'));
    expect(systemNotifier({ platform: 'linux', env: { PATH: bin } })).toEqual({
      why: expect.stringContaining('notify-send is not installed'),
    });
    await writeFile(join(bin, 'notify-send'), '#!/bin/sh\nexit 0\n');
    await chmod(join(bin, 'notify-send'), 0o755);
    const { calls, run } = recorder();
    const n = notifier(systemNotifier({ platform: 'linux', env: { PATH: bin }, run }));
    expect(n.program).toBe('notify-send');
    await n.show({ title: '-x looks like an option', body: 'b' });
    expect(calls[0]).toEqual({
      file: join(bin, 'notify-send'),
      args: ['--app-name=Rein', '--', '-x looks like an option', 'b'],
    });
    expect(systemNotifier({ platform: 'win32', env: {} })).toEqual({ why: 'no system notifications on win32' });
  });

  it('shows one at a time, clips long words, and drops what piles up beyond a few', async () => {
    const started: string[] = [];
    const finish: (() => void)[] = [];
    const run: RunProgram = (_file, args) =>
      new Promise((resolve) => {
        started.push(args.at(-1)!);
        finish.push(resolve);
      });
    const n = notifier(systemNotifier({ platform: 'darwin', env: {}, run }));
    const shown = [1, 2, 3, 4].map((i) => n.show({ title: 't', body: `${i}`.repeat(i === 1 ? 1_000 : 1) }));
    await expect(n.show({ title: 't', body: 'fifth' })).rejects.toThrow(/too many notifications/);
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toHaveLength(1); // the others wait for the first
    expect(started[0]!.length).toBe(400);
    expect(started[0]!.endsWith('…')).toBe(true);
    for (let i = 0; i < 4; i++) {
      finish[i]!();
      await shown[i];
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(started.slice(1)).toEqual(['2', '3', '4']);
  });

  it('a failing program rejects with its error, and the next notification still goes', async () => {
    let first = true;
    const run: RunProgram = async () => {
      if (first) {
        first = false;
        throw new Error('notify-send failed: Cannot autolaunch D-Bus without X11 $DISPLAY');
      }
    };
    const n = notifier(systemNotifier({ platform: 'darwin', env: {}, run }));
    await expect(n.show({ title: 'a', body: 'b' })).rejects.toThrow(/D-Bus/);
    await expect(n.show({ title: 'a', body: 'b' })).resolves.toBeUndefined();
  });
});
