// Compiled code kept between runs of `rein`: every launchd schedule run, heartbeat, hook and command is
// a fresh process, and compiling the CLI's JavaScript is a good part of what each start costs
// (docs/benchmarks.md, `startup`). Node ≥ 22.1 has this built in (`module.enableCompileCache`); on
// Node 20 the CLI's own files (CommonJS, under out/cli/) are compiled through `vm.Script` with V8's
// cached data, the way the v8-compile-cache package did it for years. Everything else loads as usual.
//
// The cache is a folder of the user's own (0700; refused when another user could write to it, since
// cached code is code), keyed by the file (path, length, time) and the Node version, written once per file (on
// exit, with what that run compiled) and replaced atomically. V8 itself rejects data made by another
// version or for other bytes; a rejected or unreadable entry only means compiling as before.
// REIN_CODE_CACHE=off turns it off; REIN_CODE_CACHE=<dir> puts it elsewhere.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import vm from 'node:vm';

/** Where a process finds the function to call before it changes a V8 flag (see startCodeCache). */
export const BEFORE_V8_FLAG_CHANGE = Symbol.for('rein.beforeV8FlagChange');

/** Where the cache lives by default: the platform's per-user cache folder. */
export function codeCacheDir(env = process.env, platform = process.platform) {
  if (env.REIN_CODE_CACHE && env.REIN_CODE_CACHE !== 'off') return env.REIN_CODE_CACHE;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'Rein', 'code');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rein', 'code');
}

/** A folder only this user can write to, made when missing; undefined when there is none to be had. */
function ownFolder(dir) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * The entry for one file: its path, length and modification time with the Node version and arch. Hashing
 * the content itself would cost more than a few of the milliseconds the cache saves; a rebuilt file has a
 * new time (chunks also carry a content hash in their names), and V8 refuses data made for another length.
 */
function cacheKey(filename, content) {
  let mtime = 0;
  try {
    mtime = statSync(filename).mtimeMs;
  } catch {
    // Compiled from memory: the length alone.
  }
  return createHash('sha1').update(`${process.version}\0${process.arch}\0${filename}\0${content.length}\0${mtime}`).digest('hex');
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
    const file = join(dir, cacheKey(filename, content));
    let cachedData;
    try {
      cachedData = readFileSync(file);
    } catch {
      // Not cached yet.
    }
    // No `import()` works in such a script (Node 20 loses the callback with cached data, so none is
    // given): the build turns every dynamic import into `require` (vite.cli.config.ts).
    const script = new vm.Script(Module.wrap(content), { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) pending.push({ file, script });
    const require = (id) => this.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, this, false, options);
    require.main = process.mainModule;
    require.cache = Module._cache;
    return script.runInThisContext({ displayErrors: true }).call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  const save = () => {
    for (const { file, script } of pending.splice(0)) {
      try {
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        renameSync(temp, file);
      } catch {
        // A cache that cannot be written costs the next run a compile, nothing more.
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
