/**
 * A watched folder the watching process may not read, for real: `rein doctor` fails with what to do, and
 * a real `rein daemon` reports the watch `unreadable` in the agent's activity and shows one system
 * notification — never a watcher that silently sees nothing. The folder is mode 000; tests run as root
 * here, and root reads any folder, so rein runs as `nobody` (setpriv drops the user, as a normal login
 * would be). On macOS the same refusal comes from the privacy settings (EPERM) rather than the mode.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, REIN_BIN } from '../support/cli.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
/** Root without setpriv cannot be made to meet a folder it may not read: skipped, and says why. */
const runnable = !isRoot || setpriv !== undefined;

/** argv that runs `node rein …` as a user for whom a mode-000 folder is unreadable. */
function asUser(args: string[]): [string, string[]] {
  const node = [process.execPath, REIN_BIN, ...args];
  return isRoot
    ? [setpriv!, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...node]]
    : [node[0]!, node.slice(1)];
}

let root: string;
let home: string;
let locked: string;
let open: string;
let notified: string;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

beforeEach(async () => {
  // Not under this test run's TMPDIR (a 0700 folder of root's, which nobody could not even pass through).
  root = await mkdtemp(join(isRoot ? '/tmp' : tmpdir(), 'rein-watch-locked-'));
  home = join(root, 'rein');
  locked = join(root, 'Downloads');
  open = join(root, 'notes');
  notified = join(root, 'notified.txt');
  const bin = join(root, 'bin');
  for (const d of [home, locked, open, bin, join(home, 'agents', 'clerk')]) await mkdir(d, { recursive: true });
  await writeFile(join(home, 'agents', 'clerk', 'AGENT.md'), 'You sort files.\n');
  await writeFile(
    join(home, 'agents', 'clerk', 'config.yaml'),
    `watch:\n  - path: ${JSON.stringify(locked)}\n    glob: "*.pdf"\n  - path: ${JSON.stringify(open)}\n`,
  );
  // A stand-in for notify-send that writes its arguments down: no real notification is shown.
  await writeFile(
    join(bin, 'notify-send'),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done >> '${notified}'\n`,
  );
  await chmod(join(bin, 'notify-send'), 0o755);
  await chmod(home, 0o700);
  if (isRoot)
    for (const d of [root, home, join(home, 'agents'), join(home, 'agents', 'clerk'), locked, open, bin])
      await chown(d, NOBODY, NOBODY);
  await chmod(locked, 0o000);
  env = cleanEnv({
    REIN_HOME: home,
    HOME: root,
    ANTHROPIC_API_KEY: 'test-key',
    REIN_SCHEDULE_BACKEND: 'daemon',
    REIN_CODE_CACHE: 'off',
    PATH: `${bin}:${process.env.PATH}`,
  });
});

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGTERM');
      await new Promise((ok) => c.once('exit', ok));
    }
  }
  await chmod(locked, 0o755).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

function reinAs(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [file, argv] = asUser(args);
  const child = spawn(file, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((ok) => child.on('close', (code) => ok({ code, stdout, stderr })));
}

type Check = { name: string; status: string; message: string; hint?: string };
const watchersCheck = (stdout: string) =>
  (JSON.parse(stdout) as { checks: Check[] }).checks.find((c) => c.name === 'watchers')!;

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

describe.runIf(runnable)('a watched folder the watching process may not read', () => {
  it('the folder really refuses this user (else nothing below could fail)', () => {
    const [file, argv] = isRoot
      ? [setpriv!, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath]]
      : [process.execPath, []];
    const r = spawnSync(
      file,
      [
        ...argv,
        '-e',
        `require('fs').promises.opendir(${JSON.stringify(locked)}).then(() => console.log('read'), (e) => console.log(e.code))`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.stdout.trim()).toBe('EACCES');
  });

  it('rein doctor fails the watchers check, naming the folder, why, and what to do', async () => {
    const r = await reinAs(['doctor', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe('');
    expect(watchersCheck(r.stdout)).toEqual({
      name: 'watchers',
      status: 'fail',
      message: `clerk: ${locked} cannot be read (EACCES: permission denied) — not watched, as this process sees them`,
      hint: expect.stringContaining('read and search permission'),
    });
  });

  it("rein daemon: the activity says unreadable with the reason, one notification is shown, and doctor reports the daemon's view", async () => {
    const [file, argv] = asUser(['daemon', '--port', '0']);
    const daemon = spawn(file, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(daemon);
    let stderr = '';
    daemon.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const info = await eventually(async () => {
      const text = await readFile(join(home, 'daemon.json'), 'utf8').catch(() => undefined);
      return text ? (JSON.parse(text) as { port: number; token: string; pid: number }) : undefined;
    }, 'daemon.json');
    type Activity = {
      watchers: Array<{ path: string; watching: boolean; state?: string; reason?: string; hint?: string }>;
    };
    const activity = await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${info.port}/agents/clerk/activity`, {
        headers: { authorization: `Bearer ${info.token}` },
      });
      const body = (await res.json()) as Activity;
      return body.watchers.every((w) => w.state !== undefined) ? body : undefined;
    }, 'the watchers to look at their folders');
    expect(activity.watchers).toEqual([
      {
        path: locked,
        glob: '*.pdf',
        debounce_ms: 2000,
        watching: false,
        state: 'unreadable',
        reason: `${locked} cannot be read (EACCES: permission denied)`,
        hint: expect.stringContaining('read and search permission'),
      },
      { path: open, debounce_ms: 2000, watching: true, state: 'watching' },
    ]);
    // The daemon's log says it too.
    await eventually(
      async () => (stderr.includes(`watch folder ${locked} of clerk is not watched`) ? true : undefined),
      'the warning',
    );
    const shown = await eventually(
      async () => (await readFile(notified, 'utf8').catch(() => undefined)) || undefined,
      'the notification',
    );
    expect(shown.split('\n')).toEqual([
      '--app-name=Rein',
      '--',
      `clerk: cannot watch ${locked}`,
      expect.stringContaining('cannot be read (EACCES'),
      '',
    ]);

    const r = await reinAs(['doctor', '--json']);
    expect(watchersCheck(r.stdout)).toMatchObject({
      status: 'fail',
      message: `clerk: ${locked} cannot be read (EACCES: permission denied) — not watched, as the running daemon (pid ${info.pid}) sees them`,
    });
  });
});

describe.skipIf(runnable)('a watched folder the watching process may not read (skipped)', () => {
  it.skip('needs setpriv to run rein as a user a mode-000 folder refuses: tests run as root here, and root reads any folder', () =>
    undefined);
});
