// Compiled code kept between runs of `rein`: every launchd schedule run, heartbeat, hook and command is
// a fresh process, and compiling the CLI's JavaScript is a good part of what each start costs
// (docs/benchmarks.md, `startup`). Node ≥ 22.1 has this built in (`module.enableCompileCache`, with its
// own checks); on Node 20 the CLI's own files (CommonJS, under out/cli/) are compiled through `vm.Script`
// with V8's cached data, the way the v8-compile-cache package did it for years. Everything else loads as
// usual.
//
// Cached data is code: V8 runs it without looking at the source again, and its own check is only the
// source's length and a hash of its flags. So an entry is used only when it was made from the very text
// being compiled: each entry starts with a header naming the Node version, the arch, the file and the
// SHA-256 of the source it was compiled from, and the cached bytes are handed to V8 only when that header
// is, byte for byte, the one for the source being loaded now. Anything else (another source of the same
// length, an entry from another build, a damaged or foreign file) means compiling fresh and writing the
// entry again. The folder is the user's own (0700; refused when another user could write to it), and an
// entry is refused when it is a symbolic link, not the user's, or writable by group or others. A header
// is a hash, not a signature: whoever can write in the folder can also write a header for the real
// source, which is why the folder must stay out of reach of what Rein's agent runs (it is one of the
// permission engine's protected places).
//
// Entries are named by the file and the Node version (path, version, arch), written once per file (on
// exit, with what that run compiled) and replaced atomically. REIN_CODE_CACHE=off turns it off;
// REIN_CODE_CACHE=<dir> puts it elsewhere.
import crypto from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import vm from 'node:vm';

/** Where a process finds the function to call before it changes a V8 flag (see startCodeCache). */
export const BEFORE_V8_FLAG_CHANGE = Symbol.for('rein.beforeV8FlagChange');

/** The first bytes of every entry: the format, so an entry of another format is never taken for one. */
const MAGIC = 'rein-code-cache 2';

/** Where the cache lives by default: the platform's per-user cache folder. */
export function codeCacheDir(env = process.env, platform = process.platform) {
  if (env.REIN_CODE_CACHE && env.REIN_CODE_CACHE !== 'off') return env.REIN_CODE_CACHE;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'Rein', 'code');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rein', 'code');
}

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/** Only this user could have written a file or folder with these facts. */
const ownedAndPrivate = (st) => (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;

/** A folder only this user can write to, made when missing; undefined when there is none to be had. */
function ownFolder(dir) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    return st.isDirectory() && ownedAndPrivate(st) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** SHA-256 in hex; the one-shot `crypto.hash` (Node ≥ 20.12) where there is one. */
const sha256 =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** The entry's file name for one source file: its path with the Node version and arch. */
const entryName = (filename) => sha256(`${process.version}\0${process.arch}\0${filename}`);

/**
 * The header an entry for this source must start with: the key facts and the hash of the exact text
 * compiled (JSON, so no file name can end the line early).
 */
const headerFor = (filename, source) =>
  Buffer.from(`${MAGIC} ${JSON.stringify([process.version, process.arch, filename, sha256(source)])}\n`);

/**
 * The entry's bytes, when it is a regular file of this user's that nobody else can write; else undefined.
 * Opened without following a symbolic link, and checked on the open file, so what is checked is what is read.
 */
function readEntry(file) {
  let fd;
  try {
    if (constants.O_NOFOLLOW === undefined && lstatSync(file).isSymbolicLink()) return undefined;
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || !ownedAndPrivate(st)) return undefined;
    return readFileSync(fd);
  } catch {
    // Not cached yet, or a symbolic link (ELOOP): compiled as if there were no entry.
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The cached data in an entry when its header is the expected one, else undefined. */
function cachedDataIn(entry, header) {
  if (!entry || entry.length <= header.length || !entry.subarray(0, header.length).equals(header)) return undefined;
  return entry.subarray(header.length);
}

/** Starts caching the compiled code of the CommonJS files under `root`. Returns how (for tests and the benchmark). */
export function startCodeCache(root, env = process.env) {
  if (env.REIN_CODE_CACHE === 'off') return 'off';
  const dir = ownFolder(codeCacheDir(env));
  if (!dir) return 'off';
  if (typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache(dir);
    return 'node';
  }
  const prefix = root.endsWith(sep) ? root : root + sep;
  const pending = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    const source = Module.wrap(content);
    const file = join(dir, entryName(filename));
    const header = headerFor(filename, source);
    const cachedData = cachedDataIn(readEntry(file), header);
    // No `import()` works in such a script (Node 20 loses the callback with cached data, so none is
    // given): the build turns every dynamic import into `require` (vite.cli.config.ts).
    const script = new vm.Script(source, { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) pending.push({ file, header, script });
    const require = (id) => this.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, this, false, options);
    require.main = process.mainModule;
    require.cache = Module._cache;
    return script
      .runInThisContext({ displayErrors: true })
      .call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  const save = () => {
    for (const { file, header, script } of pending.splice(0)) {
      const temp = `${file}.${process.pid}.tmp`;
      try {
        rmSync(temp, { force: true });
        writeFileSync(temp, Buffer.concat([header, script.createCachedData()]), { mode: 0o600, flag: 'wx' });
        renameSync(temp, file);
      } catch {
        // A cache that cannot be written costs the next run a compile, nothing more.
        try {
          rmSync(temp, { force: true });
        } catch {
          // Left for the next write of this process id to clear.
        }
      }
    }
  };
  // V8 stamps cached data with a hash of its flags and refuses data with another stamp. Code that is
  // about to change a flag (the shell analyser, src-main/core/permissions/shell/parser.ts) calls this
  // first: what was compiled so far is saved under the flags every run starts with, and nothing after.
  let flagsChanged = false;
  globalThis[BEFORE_V8_FLAG_CHANGE] = () => {
    if (flagsChanged) return;
    save();
    flagsChanged = true;
  };
  process.once('exit', () => {
    if (!flagsChanged) save();
  });
  return 'v8';
}
