/**
 * What a grant covers. "Allow in this conversation" and "Always allow" hold for exactly what the person
 * saw in the question, never more (docs/permissions.md, *Trust boundaries*):
 *
 * - bash: the exact command line, in the same working folder; when the line runs a script (`sh x.sh`,
 *   `python3 x.py`, `./x`, `node x.js`, `source x`, an npm/yarn/pnpm script, `make`), the script's content
 *   hash is part of the grant, so the grant is void once the script changes;
 * - file tools: the one path (symlinks resolved);
 * - GUI tools: the one app the call targets (else the exact call);
 * - http: one method to one host;
 * - every other tool: the tool.
 *
 * Nothing that writes a persistence place, one of Rein's protected places or its settings can be granted
 * beyond the one call (`null`): the person is asked each time.
 *
 * The engine computes the grant of a call (the same rule for every face: card, dialog, terminal,
 * `POST /approval`, WebSocket, MCP forms); saved grants (`permissions.grants`) are compared by their
 * canonical JSON, so an entry matches only a call that would produce the same entry.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { GrantEntry } from '../config/schema.js';
import { canonicalJson } from '../util/canonicalJson.js';
import { describeWriteError } from '../util/diskErrors.js';
import { ReinError } from '../errors.js';
import { realpathLoose } from '../util/realpath.js';
import { REIN_SECRETS_DIR } from '../secrets/reinSecrets.js';
import { codeFamily, inlineCodeArgs, scriptFileRun } from './shell/commandKinds.js';
import { pathCandidates, type PathContext } from './shell/normalize.js';
import { hasUnknown, type ShellAnalysis } from './shell/types.js';

export type { GrantEntry };

/** A script bigger than this is not hashed: a grant on running it covers the one call only. */
const MAX_SCRIPT_BYTES = 8 * 1024 * 1024;
/** Programs in these folders are the system's, not scripts a run could change without a person. */
const SYSTEM_PROGRAMS = /^\/(bin|sbin|usr|System|opt\/homebrew\/(bin|Cellar|opt)|Library\/Apple)\//;

/** The canonical text of a grant: two grants are the same grant exactly when their keys are equal. */
export const grantKey = (g: GrantEntry): string => canonicalJson(g);

/** `sha256:<hex>` of a file's content, `missing` when there is none, undefined when it cannot be hashed. */
export function contentHash(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_SCRIPT_BYTES) return undefined;
    const buf = Buffer.alloc(st.size);
    let read = 0;
    while (read < st.size) {
      const n = readSync(fd, buf, read, st.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return `sha256:${createHash('sha256').update(buf.subarray(0, read)).digest('hex')}`;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The files a bash line runs as scripts, absolute (relative ones against the working folder and `cd` targets). */
export function scriptsRun(a: ShellAnalysis, pctx: PathContext): string[] | undefined {
  const out = new Set<string>();
  for (const cmd of a.commands) {
    if (cmd.nameDynamic) continue;
    const values = cmd.args.map((w) => w.value);
    const candidates: string[] = [];
    const script = scriptFileRun(cmd);
    if (script !== undefined && !(codeFamily(cmd.name) && inlineCodeArgs(cmd).length > 0)) candidates.push(script);
    // Package scripts and makefiles: what `npm test` or `make` runs is written in the project.
    const pm = ['npm', 'pnpm', 'yarn', 'bun'].includes(cmd.name);
    if (
      pm &&
      values.some(
        (v) =>
          ['run', 'run-script', 'test', 't', 'start', 'stop', 'restart', 'exec'].includes(v) ||
          (cmd.name === 'yarn' && v !== '' && !v.startsWith('-')),
      )
    )
      candidates.push('package.json');
    if (['make', 'gmake'].includes(cmd.name)) {
      const f = values.findIndex((v) => v === '-f' || v === '--file' || v === '--makefile');
      candidates.push(...(f !== -1 && values[f + 1] ? [values[f + 1]!] : ['GNUmakefile', 'makefile', 'Makefile']));
    }
    for (const c of candidates) {
      if (hasUnknown(c)) return undefined;
      for (const abs of pathCandidates(c, pctx).slice(0, 4)) if (!SYSTEM_PROGRAMS.test(abs)) out.add(abs);
    }
    if (out.size > 16) return undefined;
  }
  return [...out].sort();
}

/**
 * The grant of a shell line: the exact line in this folder, with the content hashes of the scripts it runs,
 * for the tool that runs it (the bash tool, or another tool whose traits say it runs shell lines).
 */
export function bashGrant(
  command: string,
  cwd: string,
  a: ShellAnalysis | undefined,
  pctx: PathContext,
  tool = 'bash',
): GrantEntry | null {
  if (!a) return null;
  const scripts = scriptsRun(a, pctx);
  if (scripts === undefined) return null;
  const hashes: Record<string, string> = {};
  for (const s of scripts) {
    const h = contentHash(s);
    if (h === undefined) return null;
    // A makefile that is not there is not run: only the ones that exist count (a new one voids the grant).
    if (h === 'missing' && /(^|\/)(GNUmakefile|makefile|Makefile)$/.test(s)) continue;
    hashes[s] = h;
  }
  return {
    tool,
    command: command.trim(),
    cwd: path.resolve(cwd),
    ...(Object.keys(hashes).length > 0 ? { scripts: hashes } : {}),
  };
}

/** One line for a person: what the grant covers. */
export function describeGrant(g: GrantEntry, home?: string): string {
  const short = (p: string) => (home && (p === home || p.startsWith(`${home}/`)) ? `~${p.slice(home.length)}` : p);
  if (g.command !== undefined) {
    const scripts = Object.keys(g.scripts ?? {});
    const more =
      scripts.length > 0
        ? `, while ${scripts.map(short).join(', ')} ${scripts.length === 1 ? 'is' : 'are'} unchanged`
        : '';
    return `the command \`${g.command}\`${g.cwd ? ` in ${short(g.cwd)}` : ''}${more}`;
  }
  if (g.path !== undefined) return `${g.tool} on ${short(g.path)}`;
  if (g.app !== undefined) return `${g.tool} in ${g.app}`;
  if (g.host !== undefined) return `${g.method ?? 'any'} requests to ${g.host}`;
  if (g.input !== undefined) return `this exact ${g.tool} call`;
  return `every ${g.tool} call`;
}

/** A file tool's grant: the one path, symlinks resolved. */
export const pathGrant = (tool: string, real: string): GrantEntry => ({ tool, path: realpathLoose(real) });

/** The grant of exactly one call (what a face's "allow" covers when nothing wider may be granted). */
export const exactGrant = (tool: string, input: unknown): GrantEntry => ({
  tool,
  input: canonicalJson(input).slice(0, 20_000),
});

// ---- session grants, signed ---------------------------------------------------------------------------

/** Where the key that signs session grants lives: Rein's secrets folder (a hard block for every tool). */
export const grantKeyFile = (reinHome: string): string => path.join(reinHome, REIN_SECRETS_DIR, 'grants.key');

const PREFIX = 'v2:';

/**
 * Signs and checks the "Allow in this conversation" grants kept in a session file. The session file is
 * an ordinary file a tool could reach in some way Rein cannot see (an MCP filesystem server), so each
 * grant carries an HMAC over the session, the agent and the grant, with a key only Rein reads
 * (`secrets/grants.key`, 0600). A grant that does not verify — forged, copied from another session, or
 * written before grants were signed — is ignored: the call asks again.
 */
export class GrantSigner {
  readonly #file: string;
  #key: Buffer | undefined;

  constructor(reinHome: string) {
    this.#file = grantKeyFile(reinHome);
  }

  #secret(): Buffer {
    if (this.#key) return this.#key;
    try {
      const st = statSync(this.#file);
      if (st.isFile() && st.size >= 32) {
        this.#key = readFileSync(this.#file);
        return this.#key;
      }
    } catch {
      // Not made yet.
    }
    mkdirSync(path.dirname(this.#file), { recursive: true, mode: 0o700 });
    const fresh = randomBytes(32);
    try {
      // `wx`: of two processes making it at once, one wins and both use its key.
      writeFileSync(this.#file, fresh, { mode: 0o600, flag: 'wx' });
      this.#key = fresh;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        // A full disk leaves the new file empty or short: never a key (an empty key signs what anyone
        // can forge). Removed, so the next try makes it whole.
        rmSync(this.#file, { force: true });
        throw describeWriteError(e, this.#file);
      }
      this.#key = readWholeKey(this.#file);
    }
    return this.#key;
  }

  #mac(session: string, agent: string, key: string): string {
    return createHmac('sha256', this.#secret()).update(`${session}\0${agent}\0${key}`).digest('hex');
  }

  /** The stored form of a grant for this session. */
  sign(session: string, agent: string, grant: GrantEntry): string {
    const key = grantKey(grant);
    return `${PREFIX}${this.#mac(session, agent, key)}:${key}`;
  }

  /** The grant key a stored entry holds, when it was signed for this session and agent; undefined otherwise. */
  verify(session: string, agent: string, stored: string): string | undefined {
    if (!stored.startsWith(PREFIX)) return undefined;
    const rest = stored.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    if (colon !== 64) return undefined;
    const mac = Buffer.from(rest.slice(0, 64), 'hex');
    const key = rest.slice(65);
    let expected: Buffer;
    try {
      expected = Buffer.from(this.#mac(session, agent, key), 'hex');
    } catch {
      return undefined;
    }
    return mac.length === expected.length && timingSafeEqual(mac, expected) ? key : undefined;
  }
}

const signers = new Map<string, GrantSigner>();
/** One signer per REIN_HOME in a process (the key is read once). */
export function grantSigner(reinHome: string): GrantSigner {
  const home = path.resolve(reinHome);
  let s = signers.get(home);
  if (!s) {
    s = new GrantSigner(home);
    if (signers.size > 20) signers.clear();
    signers.set(home, s);
  }
  return s;
}

/**
 * The key another process just made: it creates the file and then writes the 32 bytes, so a reader
 * between the two sees it short. Waits for it briefly; a key that stays short is an error, never used.
 */
function readWholeKey(file: string): Buffer {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; ; i++) {
    const key = readFileSync(file);
    if (key.length >= 32) return key;
    if (i >= 100)
      throw new ReinError(
        'io_error',
        `${file}: the grant signing key is incomplete (${key.length} bytes); remove the file and Rein makes a new one`,
        { file },
      );
    Atomics.wait(pause, 0, 0, 5);
  }
}
