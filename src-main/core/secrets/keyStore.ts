/**
 * One place the model API key can be kept at rest, and what the three places share: the names the key
 * is filed under, the environment the store programs get, and how one of them is run.
 *
 * The three places (docs/configuration.md, *The API key*): the macOS Keychain (keychainStore.ts, through
 * `/usr/bin/security`, no native module), the Secret Service on Linux (libsecretStore.ts, through
 * libsecret's `secret-tool`), and a file only its owner can read, `REIN_HOME/secrets/anthropic-api-key`
 * (fileStore.ts). Which one a key goes to, and the order they are read in, is apiKey.ts's decision.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { runProcess, type ProcessResult } from '../process/subprocess.js';

export const KEY_STORE_KINDS = ['keychain', 'libsecret', 'file'] as const;
export type KeyStoreKind = (typeof KEY_STORE_KINDS)[number];

export type Usability = { usable: true } | { usable: false; reason: string };

export interface KeyStore {
  readonly kind: KeyStoreKind;
  /** Where, in words a person can act on ("the macOS Keychain (service rein, account anthropic-api-key)"). */
  readonly where: string;
  /** False for the file: readable only by its owner, but plain text at rest. */
  readonly encrypted: boolean;
  /** Whether this store can take a key here and now (the binary exists, a Secret Service answers); why not. */
  usable(): Promise<Usability>;
  /** The stored key, or undefined. Throws ReinError `unavailable` when the store cannot answer. */
  read(): Promise<string | undefined>;
  /** Throws ReinError `unavailable` when the store cannot take it. */
  write(key: string): Promise<void>;
  /** True when a key was there. Throws ReinError `unavailable` when the store cannot answer. */
  remove(): Promise<boolean>;
}

/** The Keychain's service and libsecret's `service` attribute. */
export const KEY_SERVICE = 'rein';
/** The account (attribute) of the default REIN_HOME's key. */
export const KEY_ACCOUNT = 'anthropic-api-key';
/** What Keychain Access and Seahorse show. */
export const KEY_LABEL = 'Rein: Anthropic API key';

/**
 * The account a home's key is filed under. The usual `~/.rein` has the plain name; another REIN_HOME
 * (a second setup, every test) gets its own entry, so it can neither read nor replace the usual key.
 */
export function keyAccount(home: string): string {
  const abs = resolve(home);
  return abs === join(homedir(), '.rein') ? KEY_ACCOUNT : `${KEY_ACCOUNT}:${abs}`;
}

/**
 * The environment of `security` and `secret-tool`: what they need to find the user's keychain or session
 * bus, nothing else (in particular no ANTHROPIC_API_KEY), and messages in one language.
 */
export function storeToolEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { PATH: env.PATH || '/usr/bin:/bin', LC_ALL: 'C' };
  for (const name of [
    'HOME',
    'USER',
    'LOGNAME',
    'TMPDIR',
    'DBUS_SESSION_BUS_ADDRESS',
    'XDG_RUNTIME_DIR',
    'DISPLAY',
    'WAYLAND_DISPLAY',
  ]) {
    const v = env[name];
    if (v !== undefined && v !== '') out[name] = v;
  }
  return out;
}

/** Reads answer at once or not at all; a write may wait for a person to unlock the keychain. */
export const READ_TIMEOUT_MS = 15_000;
export const WRITE_TIMEOUT_MS = 60_000;

export interface ToolRun {
  /** How it ended, in one line ("exited 44: …", "timed out after 15 s", "not found"). */
  summary: string;
  result: ProcessResult;
}

/**
 * Runs a store program. runProcess starts it in a new session (`detached`), so it has no controlling
 * terminal: `security` then reads a password it prompts for from stdin, never from the person's tty.
 */
export async function runStoreTool(
  file: string,
  args: readonly string[],
  o: { env: NodeJS.ProcessEnv; stdin?: string; timeoutMs: number },
): Promise<ToolRun> {
  const result = await runProcess({
    file,
    args,
    env: storeToolEnv(o.env),
    ...(o.stdin !== undefined ? { stdin: o.stdin } : {}),
    timeoutMs: o.timeoutMs,
    killGraceMs: 500,
    lingering: 'kill',
    output: { mode: 'separate', stdoutMaxBytes: 64 * 1024, stderrMaxBytes: 16 * 1024 },
  });
  return { result, summary: summarize(file, result, o.timeoutMs) };
}

function summarize(file: string, r: ProcessResult, timeoutMs: number): string {
  if (r.kind === 'spawn_failed') {
    const code = (r.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${file} is not installed` : `${file} could not start: ${r.error.message}`;
  }
  if (r.kind === 'timed_out') return `${file} did not answer within ${Math.round(timeoutMs / 1000)} s`;
  if (r.kind === 'cancelled') return `${file} was stopped`;
  const said = oneLine(r.stderr);
  return `${file} exited ${r.exitCode ?? r.exitSignal}${said ? `: ${said}` : ''}`;
}

/** A tool's message, on one line and short (never its stdout, which may hold the key). */
export function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
