/**
 * bin/codeCache.js: the compiled code of the built CLI is kept between runs, in a folder only the user
 * can write to; bad entries cost a compile, never a failure; an entry runs only for the very source it
 * was compiled from (V8's own check is the source's length).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, readFile, readdir, rename, stat, symlink, writeFile } from 'node:fs/promises';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, REIN_BIN, rein, tempHome } from '../support/cli.js';

let home: string;
let cwd: string;
let cacheDir: string;

beforeEach(async () => {
  ({ home, cwd } = await tempHome());
  cacheDir = join(home, 'code-cache');
});

const version = (extra: Record<string, string | undefined>) =>
  rein(['--version'], { env: cleanEnv({ REIN_HOME: home, ...extra }), cwd });
const entries = async (dir: string) =>
  (await readdir(dir).catch(() => [] as string[])).filter((f) => !f.endsWith('.tmp'));

/** The CLI's entry file, as Node names it when it compiles it. */
const CLI_MAIN = realpathSync(join(dirname(REIN_BIN), '..', 'out', 'cli', 'rein.js'));
const wrapped = (content: string) => (Module as unknown as { wrap(s: string): string }).wrap(content);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The header line of an entry (its key facts and the hash of the source it was compiled from). */
async function headerOf(file: string): Promise<{ line: string; facts: [string, string, string, string] } | undefined> {
  const bytes = await readFile(file);
  const end = bytes.indexOf(0x0a);
  const line = bytes.subarray(0, end === -1 ? 0 : end).toString('utf8');
  const m = /^rein-code-cache \d+ (\[.*\])$/.exec(line);
  return m ? { line, facts: JSON.parse(m[1]!) } : undefined;
}

/** The entry made for one source file. */
async function entryFor(dir: string, filename: string): Promise<string> {
  for (const f of await entries(dir)) if ((await headerOf(join(dir, f)))?.facts[2] === filename) return join(dir, f);
  throw new Error(`no code cache entry for ${filename} in ${dir}`);
}

/**
 * V8 cached data compiled from another source of the same length as the CLI's entry file, in a Node
 * process started as `rein` is (same binary, same flags: V8 checks those). The same process first shows
 * that V8 itself accepts that data for the real source and runs the other code (the attack is real).
 */
function foreignCachedData(out: string): { foreign: string; proof: string } {
  const real = readFileSync(CLI_MAIN, 'utf8');
  const body = 'process.stdout.write("FOREIGN-CODE-RAN\\n"); process.exit(0);';
  const foreign = `${body}/*${' '.repeat(real.length - body.length - 4)}*/`;
  expect(foreign.length).toBe(real.length);
  const script = `
    const fs = require('node:fs'), vm = require('node:vm'), Module = require('node:module');
    const [, foreignFile, file, out] = process.argv;
    const data = new vm.Script(Module.wrap(fs.readFileSync(foreignFile, 'utf8')), { filename: file }).createCachedData();
    fs.writeFileSync(out, data);
    const real = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData: data });
    process.stdout.write('V8 rejected: ' + real.cachedDataRejected + '\\n');
    real.runInThisContext()();
  `;
  const foreignFile = `${out}.source.js`;
  writeFileSync(foreignFile, foreign);
  const r = spawnSync(process.execPath, ['-e', script, foreignFile, CLI_MAIN, out], {
    env: cleanEnv({}),
    encoding: 'utf8',
  });
  return { foreign, proof: r.stdout };
}

describe('the CLI code cache', () => {
  it('writes entries on the first run (folder 0700, files 0600) and reuses them on the next', async () => {
    const first = await version({ REIN_CODE_CACHE: cacheDir });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const written = await entries(cacheDir);
    expect(written.length).toBeGreaterThan(0);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    for (const f of written) expect((await stat(join(cacheDir, f))).mode & 0o777).toBe(0o600);
    const times = new Map(
      await Promise.all(written.map(async (f) => [f, (await stat(join(cacheDir, f))).mtimeMs] as const)),
    );

    const second = await version({ REIN_CODE_CACHE: cacheDir });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // Accepted entries are not written again.
    for (const f of written) expect((await stat(join(cacheDir, f))).mtimeMs).toBe(times.get(f));
  });

  it('keeps what a run that analyses a bash line compiled (the analyser changes a V8 flag)', async () => {
    const check = () =>
      rein(['permissions', 'check', '--tool', 'bash', '--input', '{"command":"ls -la"}', '--json'], {
        env: cleanEnv({ REIN_HOME: home, REIN_CODE_CACHE: cacheDir }),
        cwd,
      });
    const first = await check();
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ decision: 'allow' });
    const written = await entries(cacheDir);
    expect(written.length).toBeGreaterThan(0);
    const times = new Map(
      await Promise.all(written.map(async (f) => [f, (await stat(join(cacheDir, f))).mtimeMs] as const)),
    );
    expect((await check()).stdout).toBe(first.stdout);
    // Data saved under the flags every run starts with is accepted: nothing is written again.
    for (const f of written) expect((await stat(join(cacheDir, f))).mtimeMs).toBe(times.get(f));
  });

  it('recompiles and replaces an entry that is damaged: no header, or the right header and data V8 rejects', async () => {
    await version({ REIN_CODE_CACHE: cacheDir });
    const victim = await entryFor(cacheDir, CLI_MAIN);
    const header = (await headerOf(victim))!.line;
    for (const bytes of ['not V8 cached data', `${header}\nnot V8 cached data either`]) {
      await writeFile(victim, bytes);
      const r = await version({ REIN_CODE_CACHE: cacheDir });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
      expect((await readFile(victim, 'utf8')).includes('not V8')).toBe(false);
      expect((await headerOf(victim))?.line).toBe(header);
    }
  });

  it('runs an entry only for the source it was compiled from: cached data of another source of the same length is replaced, not run', async () => {
    const first = await version({ REIN_CODE_CACHE: cacheDir });
    expect(first.code).toBe(0);
    const entry = await entryFor(cacheDir, CLI_MAIN);
    const real = await readFile(CLI_MAIN, 'utf8');
    const expected = (await headerOf(entry))!;
    expect(expected.facts).toEqual([process.version, process.arch, CLI_MAIN, sha256(wrapped(real))]);

    const data = join(home, 'foreign.bin');
    const { foreign, proof } = foreignCachedData(data);
    // Without a check of its own, the cache would hand V8 data that V8 accepts and runs.
    expect(proof).toBe('V8 rejected: false\nFOREIGN-CODE-RAN\n');
    const foreignData = await readFile(data);

    const planted = [
      // What an entry looked like before it had a header, at the CLI's own cache key.
      foreignData,
      // A header for the foreign source.
      Buffer.concat([
        Buffer.from(
          `rein-code-cache 2 ${JSON.stringify([process.version, process.arch, CLI_MAIN, sha256(wrapped(foreign))])}\n`,
        ),
        foreignData,
      ]),
      // A header of another format.
      Buffer.concat([
        Buffer.from(expected.line.replace(/^rein-code-cache \d+/, 'rein-code-cache 1')),
        Buffer.from('\n'),
        foreignData,
      ]),
    ];
    for (const bytes of planted) {
      await writeFile(entry, bytes, { mode: 0o600 });
      const r = await version({ REIN_CODE_CACHE: cacheDir });
      expect(r.stdout).not.toContain('FOREIGN-CODE-RAN');
      expect(r).toMatchObject({ code: 0, stdout: first.stdout });
      // Compiled fresh and written again, for the real source.
      const after = await readFile(entry);
      expect(after.equals(bytes)).toBe(false);
      expect((await headerOf(entry))?.line).toBe(expected.line);
    }
  });

  it("uses no entry that is a symbolic link, not the user's, or writable by others: it compiles and writes its own", async () => {
    await version({ REIN_CODE_CACHE: cacheDir });
    const entry = await entryFor(cacheDir, CLI_MAIN);

    for (const mode of [0o620, 0o602, 0o666]) {
      await chmod(entry, mode);
      expect((await version({ REIN_CODE_CACHE: cacheDir })).code).toBe(0);
      // Replaced by a file of its own (an accepted entry is left as it is: the first test).
      expect((await stat(entry)).mode & 0o777).toBe(0o600);
    }

    const elsewhere = join(home, 'elsewhere.bin');
    const good = await readFile(entry);
    await rename(entry, elsewhere);
    await symlink(elsewhere, entry);
    expect((await version({ REIN_CODE_CACHE: cacheDir })).code).toBe(0);
    expect((await lstat(entry)).isSymbolicLink()).toBe(false);
    expect((await readFile(elsewhere)).equals(good)).toBe(true);

    if (process.getuid?.() === 0) {
      // Only root can give a file away; another user's entry is not used either.
      await chown(entry, 65534, 65534);
      expect((await version({ REIN_CODE_CACHE: cacheDir })).code).toBe(0);
      expect((await stat(entry)).uid).toBe(0);
    }
  });

  it('uses no folder that another user could write to, and none at all when off', async () => {
    await mkdir(cacheDir, { recursive: true });
    await chmod(cacheDir, 0o777);
    expect((await version({ REIN_CODE_CACHE: cacheDir })).code).toBe(0);
    expect(await entries(cacheDir)).toEqual([]);
    await chmod(cacheDir, 0o720);
    expect((await version({ REIN_CODE_CACHE: cacheDir })).code).toBe(0);
    expect(await entries(cacheDir)).toEqual([]);

    const elsewhere = join(home, 'xdg');
    const off = await version({ REIN_CODE_CACHE: 'off', XDG_CACHE_HOME: elsewhere, HOME: home });
    expect(off.code).toBe(0);
    expect(await entries(join(elsewhere, 'rein', 'code'))).toEqual([]);
  });
});
