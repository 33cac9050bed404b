/**
 * A real Secret Service for tests: a private D-Bus session bus (dbus-daemon) with GNOME Keyring's
 * secrets component on it, unlocked with a throwaway password, its keyrings in a temp HOME. Nothing of
 * the person's own session is touched. Needs dbus-daemon, gnome-keyring-daemon and secret-tool
 * (Debian: dbus, gnome-keyring, libsecret-tools; .ci/run installs them).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SecretService {
  /** HOME, PATH and DBUS_SESSION_BUS_ADDRESS of the private session. */
  env: NodeJS.ProcessEnv;
  home: string;
  close(): Promise<void>;
}

const onPath = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

/** Why a real Secret Service cannot be started here, or undefined when it can. */
export function secretServiceMissing(): string | undefined {
  const missing = ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool'].filter((n) => !onPath(n));
  return missing.length > 0 ? `not installed: ${missing.join(', ')}` : undefined;
}

export async function startSecretService(): Promise<SecretService> {
  const home = await mkdtemp(join(tmpdir(), 'rein-secret-service-'));
  await mkdir(join(home, '.local', 'share'), { recursive: true });
  const socket = join(home, 'bus');
  const base: NodeJS.ProcessEnv = {
    HOME: home,
    PATH: process.env.PATH,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_RUNTIME_DIR: home,
    LC_ALL: 'C',
  };
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const c of children.reverse()) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const gone = new Promise((ok) => c.once('exit', ok));
      try {
        process.kill(-c.pid!, 'SIGTERM');
      } catch {
        c.kill('SIGTERM');
      }
      await Promise.race([gone, new Promise((ok) => setTimeout(ok, 2_000))]);
    }
  };
  try {
    // A bus of our own that starts no services: only the keyring started below can answer for
    // org.freedesktop.secrets (D-Bus activation would race it with a keyring that has no login collection).
    const config = join(home, 'bus.conf');
    await writeFile(
      config,
      `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=${socket}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
`,
    );
    const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--nopidfile', '--print-address=1'], {
      env: base,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(bus);
    const address = await new Promise<string>((ok, fail) => {
      let out = '';
      bus.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('\n')) ok(out.split('\n')[0]!.trim());
      });
      bus.once('exit', (code) => fail(new Error(`dbus-daemon exited ${code}`)));
      setTimeout(() => fail(new Error('dbus-daemon printed no address')), 10_000);
    });
    const env = { ...base, DBUS_SESSION_BUS_ADDRESS: address };
    const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
      env,
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    children.push(keyring);
    keyring.stdin!.end('rein-test-password');
    // Ready when an item can be stored (the unlocked login collection exists), then cleared.
    const until = Date.now() + 15_000;
    for (;;) {
      const probe = ['service', 'rein-probe', 'account', 'ready'];
      const r = spawnSync('secret-tool', ['store', '--label=probe', ...probe], {
        env,
        encoding: 'utf8',
        timeout: 5_000,
        input: 'x',
      });
      if (r.status === 0) {
        spawnSync('secret-tool', ['clear', ...probe], { env, timeout: 5_000 });
        break;
      }
      if (Date.now() > until) throw new Error(`the Secret Service did not come up: ${r.stderr}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
    if (!existsSync(socket)) throw new Error('no bus socket');
    return { env, home, close: stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
