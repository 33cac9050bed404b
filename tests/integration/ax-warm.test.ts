// The warm helper `rein ax` commands share (core/ax/warmHelper.ts): the built CLI against the fixture app
// under Xvfb, with the real Linux helper. The second command reuses the first one's helper (the same pid),
// a ref from one command works in the next, the helper ends after its idle time, its socket is private
// (0600 in a 0700 folder) and unreachable by another user, a dead relay's socket is replaced, two
// commands at once start one helper, and REIN_AX_WARM=0 bypasses it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  desktopParts,
  inCi,
  skipReason,
  startDesktop,
  type Desktop,
  type FixtureApp,
} from '../fixtures/ax/desktopSession.js';
import { cleanEnv, rein, REIN_BIN } from '../support/cli.js';

const missing = desktopParts();

describe.runIf(missing.length > 0 && inCi)('rein ax warm helper', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

type Json = Record<string, any>;

/** Alive and not a zombie (a killed relay is nobody's child to reap once its starter has exited). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
};

/** Processes running the warm relay for this REIN_HOME (their environment names it). */
function relaysOf(home: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0');
      if (!cmd.includes('__warm-serve')) continue;
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(`REIN_HOME=${home}\0`)) out.push(Number(name));
    } catch {
      // exited, or not ours
    }
  }
  return out;
}

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(missing.length > 0)(
  missing.length ? `rein ax warm helper (${skipReason(missing)})` : 'rein ax warm helper',
  () => {
    let desktop: Desktop;
    let app: FixtureApp;
    let root: string;
    let n = 0;
    let home: string;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      desktop = await startDesktop();
      app = await desktop.startFixture();
      const c = desktop.client();
      await desktop.waitForApp(c, app.pid);
      await c.disposeAsync();
      root = await mkdtemp(join(tmpdir(), 'rein-ax-warm-'));
    }, 60_000);

    // Each test has its own REIN_HOME, hence its own warm helper.
    const fresh = (extra: Record<string, string> = {}) => {
      home = join(root, `home${++n}`);
      env = {
        ...cleanEnv({ REIN_HOME: home, ...extra }),
        DISPLAY: desktop.env.DISPLAY,
        DBUS_SESSION_BUS_ADDRESS: desktop.env.DBUS_SESSION_BUS_ADDRESS,
      };
    };

    afterEach(async () => {
      if (!home) return;
      await rein(['ax', 'helper', 'stop'], { env, cwd: root });
      for (const pid of relaysOf(home)) process.kill(pid, 'SIGTERM');
      await until('the relays to end', () => relaysOf(home).length === 0, 10_000);
    });

    afterAll(async () => {
      await desktop?.close();
    });

    const ax = async (...args: string[]) => {
      const r = await rein(['ax', ...args], { env, cwd: root });
      return {
        ...r,
        json: (() => {
          try {
            return JSON.parse(r.stdout) as Json;
          } catch {
            return undefined;
          }
        })(),
      };
    };
    const status = async () => (await ax('helper', '--json')).json!;
    const warmDir = () => join(home, 'ax', 'warm');

    it('the second command reuses the first one’s helper, and a ref from one command works in the next', async () => {
      fresh();
      expect((await status()).running).toBe(false);
      const snap = await ax('snapshot', '--app', String(app.pid), '--json');
      expect(snap.code, snap.stderr).toBe(0);
      const first = await status();
      expect(first).toMatchObject({
        ok: true,
        warm: true,
        running: true,
        pid: expect.any(Number),
        helper_pid: expect.any(Number),
      });
      expect(alive(first.pid) && alive(first.helper_pid)).toBe(true);

      const save = snap.json!.elements.find((e: Json) => e.role === 'button' && e.name === 'Save').ref as string;
      const before = (await app.state()).saved as number;
      const click = await ax('click', save, '--json');
      expect(click.code, click.stdout + click.stderr).toBe(0);
      expect(click.json).toMatchObject({
        ok: true,
        action: 'click',
        ref: save,
        acted_on: { role: 'button', name: 'Save' },
      });
      expect((await app.state()).saved).toBe(before + 1);

      const second = await status();
      expect(second).toMatchObject({ running: true, pid: first.pid, helper_pid: first.helper_pid });
      expect(second.calls).toBeGreaterThan(first.calls);
      expect(relaysOf(home)).toEqual([first.pid]);
    });

    it('keeps its socket private: 0600, in a 0700 folder of the user’s, refused to another user', async () => {
      fresh();
      expect((await ax('apps', '--json')).code).toBe(0);
      const s = await status();
      const sock = lstatSync(s.socket);
      expect(sock.isSocket()).toBe(true);
      expect(sock.mode & 0o777).toBe(0o600);
      expect(sock.uid).toBe(process.getuid!());
      const dir = statSync(warmDir());
      expect(dir.mode & 0o777).toBe(0o700);
      expect(dir.uid).toBe(process.getuid!());

      // Another user (nobody) cannot connect: the kernel refuses at the folder. Needs root to switch users.
      const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
      if (process.getuid!() !== 0 || !setpriv) {
        console.warn('skipped the other-user connection: needs root and setpriv');
        return;
      }
      const probe = `import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n  s.connect(sys.argv[1]); print('connected')\nexcept OSError as e:\n  print(e.errno)`;
      const r = spawnSync(
        setpriv,
        ['--reuid=65534', '--regid=65534', '--clear-groups', '/usr/bin/python3', '-c', probe, s.socket],
        { encoding: 'utf8' },
      );
      expect(r.stdout.trim(), r.stderr).toBe('13'); // EACCES
      // And as ourselves the same probe connects (so the refusal above is about the user, not the probe).
      const ours = spawnSync('/usr/bin/python3', ['-c', probe, s.socket], { encoding: 'utf8' });
      expect(ours.stdout.trim()).toBe('connected');
    });

    it('ends after its idle time, removing its socket; the next command starts a new one', async () => {
      fresh({ REIN_AX_WARM_IDLE_MS: '1500' });
      expect((await ax('apps', '--json')).code).toBe(0);
      const s = await status();
      expect(s).toMatchObject({ running: true, idle_ms: 1500 });
      await until('the idle relay and its helper to end', () => !alive(s.pid) && !alive(s.helper_pid));
      expect(existsSync(s.socket)).toBe(false);
      expect((await status()).running).toBe(false);
      expect((await ax('apps', '--json')).code).toBe(0);
      const next = await status();
      expect(next.running).toBe(true);
      expect(next.pid).not.toBe(s.pid);
    });

    it('replaces a dead relay: its socket file left behind, its pid gone', async () => {
      fresh();
      expect((await ax('apps', '--json')).code).toBe(0);
      const s = await status();
      // A crash: the relay killed outright leaves its socket and info file; its helper follows its parent.
      process.kill(s.pid, 'SIGKILL');
      await until('the killed relay and its helper to end', () => !alive(s.pid) && !alive(s.helper_pid));
      expect(lstatSync(s.socket).isSocket()).toBe(true);
      const r = await ax('snapshot', '--app', String(app.pid), '--json');
      expect(r.code, r.stderr).toBe(0);
      const next = await status();
      expect(next.running).toBe(true);
      expect(next.pid).not.toBe(s.pid);
      expect(next.helper_pid).not.toBe(s.helper_pid);
    });

    it('replaces a relay whose helper crashed', async () => {
      fresh();
      expect((await ax('apps', '--json')).code).toBe(0);
      const s = await status();
      process.kill(s.helper_pid, 'SIGKILL');
      await until('the relay to notice and end', () => !alive(s.pid));
      const r = await ax('apps', '--json');
      expect(r.code, r.stderr).toBe(0);
      expect((await status()).helper_pid).not.toBe(s.helper_pid);
    });

    it('tightens its folder back to 0700 when it was opened', async () => {
      fresh();
      expect((await ax('apps', '--json')).code).toBe(0);
      chmodSync(warmDir(), 0o777);
      expect((await ax('apps', '--json')).code).toBe(0);
      expect(statSync(warmDir()).mode & 0o777).toBe(0o700);
    });

    it('does not use a socket open to others: it ends that relay and starts its own, private again', async () => {
      fresh();
      expect((await ax('apps', '--json')).code).toBe(0);
      const s = await status();
      chmodSync(s.socket, 0o666);
      expect((await ax('apps', '--json')).code).toBe(0);
      const next = await status();
      expect(next.running).toBe(true);
      expect(next.pid).not.toBe(s.pid);
      expect(lstatSync(next.socket).mode & 0o777).toBe(0o600);
      await until('the replaced relay to end', () => !alive(s.pid));
    });

    it('two commands at once start one helper', async () => {
      fresh();
      mkdirSync(home, { recursive: true });
      const run = () =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [REIN_BIN, 'ax', 'apps', '--json'], {
            env,
            cwd: root,
            stdio: 'ignore',
          });
          child.on('close', resolve);
        });
      const codes = await Promise.all([run(), run(), run()]);
      expect(codes).toEqual([0, 0, 0]);
      const relays = relaysOf(home);
      expect(relays).toHaveLength(1);
      expect((await status()).pid).toBe(relays[0]);
    });

    it('REIN_AX_WARM=0 starts a helper for the command and leaves nothing running', async () => {
      fresh({ REIN_AX_WARM: '0' });
      const r = await ax('apps', '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(relaysOf(home)).toEqual([]);
      expect(existsSync(warmDir())).toBe(false);
      expect(await status()).toMatchObject({ warm: false, running: false });
    });
  },
);
