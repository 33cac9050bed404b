/**
 * The files through which other processes find and reach a running daemon:
 * - `<REIN_HOME>/daemon.json` `{pid, port, host, token, version, started_at}`: written atomically with
 *   mode 0600 once the server listens, removed on shutdown (only by the daemon that wrote it);
 * - `<REIN_HOME>/daemon.token`: the bearer token, kept across restarts so a relay or a phone does not
 *   need reconfiguring after every reboot; `rein daemon rotate-token` replaces it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ReinError, errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { isProcessAlive } from '../util/processAlive.js';
import { describeIssues } from '../util/zodIssues.js';

export const DaemonInfo = z.object({
  pid: z.number().int().positive(),
  port: z.number().int().min(1).max(65_535),
  host: z.string().min(1),
  token: z.string().min(1),
  version: z.string(),
  started_at: z.string(),
});
export type DaemonInfo = z.infer<typeof DaemonInfo>;

export const daemonInfoFile = (home: string): string => join(home, 'daemon.json');
export const daemonTokenFile = (home: string): string => join(home, 'daemon.token');

/** 32 random bytes as hex: valid in a header and in a WebSocket subprotocol name. */
export const newToken = (): string => randomBytes(32).toString('hex');
const TOKEN_RE = /^[0-9a-f]{64}$/;

export async function writeDaemonInfo(home: string, info: DaemonInfo): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  await atomicWriteFile(daemonInfoFile(home), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

/** The running daemon's details, or undefined when there is no daemon.json. */
export async function readDaemonInfo(home: string): Promise<DaemonInfo | undefined> {
  const file = daemonInfoFile(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ReinError('config_io', `${file}: cannot read: ${errorMessage(e)}`, { file });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ReinError('config_invalid', `${file}: not valid JSON: ${errorMessage(e)}`, { file });
  }
  const parsed = DaemonInfo.safeParse(json);
  if (!parsed.success) {
    const p = describeIssues(parsed.error.issues, json)[0]!;
    throw new ReinError('config_invalid', `${file}: ${p.field}: ${p.message}`, { file, field: p.field });
  }
  return parsed.data;
}

/** Removes daemon.json if it still describes process `pid` (a newer daemon's file is left alone). */
export async function removeDaemonInfo(home: string, pid: number): Promise<void> {
  const info = await readDaemonInfo(home).catch(() => undefined);
  if (info && info.pid !== pid) return;
  await rm(daemonInfoFile(home), { force: true });
}

/** The persistent token, made on first use. A damaged token file is replaced (the old token is useless anyway). */
export async function loadOrCreateToken(home: string): Promise<string> {
  try {
    const t = (await readFile(daemonTokenFile(home), 'utf8')).trim();
    if (TOKEN_RE.test(t)) return t;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = newToken();
  await writeToken(home, token);
  return token;
}

export async function writeToken(home: string, token: string): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  await atomicWriteFile(daemonTokenFile(home), `${token}\n`, { mode: 0o600 });
}

/** The daemon running for this home, when daemon.json names a live process (a broken file counts as none). */
export async function runningDaemon(home: string): Promise<DaemonInfo | undefined> {
  try {
    const info = await readDaemonInfo(home);
    return info && isProcessAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}
