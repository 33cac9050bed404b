/**
 * The key in the Secret Service (GNOME Keyring, KeePassXC, KWallet's Secret Service), through libsecret's
 * `secret-tool` (Debian/Ubuntu: libsecret-tools), with the attributes `service rein account ACCOUNT`:
 *
 *   write   secret-tool store --label=LABEL service rein account ACCOUNT   (the key on stdin, no line end)
 *   read    secret-tool lookup service rein account ACCOUNT                (exit 1 and nothing said: none)
 *   remove  secret-tool clear service rein account ACCOUNT
 *
 * "Is a Secret Service running?" is answered by the read itself, quickly: without a session bus
 * (DBUS_SESSION_BUS_ADDRESS, or `$XDG_RUNTIME_DIR/bus`) nothing is started at all; otherwise
 * `secret-tool` fails at once with a message when no service owns (or can be started for)
 * `org.freedesktop.secrets`, and finding nothing exits 1 without one.
 *
 * The program is an option so tests can put a fake in its place.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ReinError } from '../errors.js';
import {
  KEY_LABEL,
  KEY_SERVICE,
  READ_TIMEOUT_MS,
  WRITE_TIMEOUT_MS,
  keyAccount,
  runStoreTool,
  type KeyStore,
  type ToolRun,
  type Usability,
} from './keyStore.js';

export interface LibsecretStoreOptions {
  env: NodeJS.ProcessEnv;
  home: string;
  secretTool?: string;
}

/** Where a session bus would be, or undefined: then no Secret Service can answer this process. */
export function sessionBus(env: NodeJS.ProcessEnv): string | undefined {
  if (env.DBUS_SESSION_BUS_ADDRESS?.trim()) return env.DBUS_SESSION_BUS_ADDRESS.trim();
  const runtime = env.XDG_RUNTIME_DIR?.trim();
  if (runtime && existsSync(join(runtime, 'bus'))) return `unix:path=${join(runtime, 'bus')}`;
  return undefined;
}

export function libsecretKeyStore(o: LibsecretStoreOptions): KeyStore {
  const tool = o.secretTool ?? 'secret-tool';
  const account = keyAccount(o.home);
  const attributes = ['service', KEY_SERVICE, 'account', account];
  const where = `the Secret Service (libsecret: service ${KEY_SERVICE}, account ${account})`;
  const run = (args: string[], stdin?: string, timeoutMs = READ_TIMEOUT_MS) =>
    runStoreTool(tool, args, { env: o.env, timeoutMs, ...(stdin !== undefined ? { stdin } : {}) });
  const noService = (why: string) =>
    new ReinError('unavailable', `no Secret Service answers (${why})`, { store: 'libsecret', noService: true });

  /** secret-tool's answer: found, nothing there (exit 1 without a word), or no service. */
  const lookup = async (): Promise<{ found: string | undefined } | { failed: ToolRun }> => {
    const run1 = await run(['lookup', ...attributes]);
    const r = run1.result;
    if (r.kind === 'exited' && r.exitCode === 0) return { found: r.stdout.replace(/\r?\n$/, '') || undefined };
    if (r.kind === 'exited' && r.exitCode === 1 && r.stderr.trim() === '') return { found: undefined };
    return { failed: run1 };
  };

  const read = async (): Promise<string | undefined> => {
    if (!sessionBus(o.env)) throw noService('no D-Bus session bus in this environment');
    const answer = await lookup();
    if ('failed' in answer) throw noService(answer.failed.summary);
    return answer.found;
  };

  return {
    kind: 'libsecret',
    where,
    encrypted: true,
    async usable(): Promise<Usability> {
      try {
        await read();
        return { usable: true };
      } catch (e) {
        return { usable: false, reason: (e as Error).message };
      }
    },
    read,
    async write(key) {
      if (!sessionBus(o.env)) throw noService('no D-Bus session bus in this environment');
      const { result, summary } = await run(['store', `--label=${KEY_LABEL}`, ...attributes], key, WRITE_TIMEOUT_MS);
      if (!(result.kind === 'exited' && result.exitCode === 0))
        throw new ReinError('unavailable', `the Secret Service did not take the key (${summary})`);
    },
    async remove() {
      const had = (await read()) !== undefined;
      if (!had) return false;
      const { result, summary } = await run(['clear', ...attributes]);
      if (!(result.kind === 'exited' && result.exitCode === 0))
        throw new ReinError('unavailable', `the Secret Service could not remove the key (${summary})`);
      return true;
    },
  };
}
