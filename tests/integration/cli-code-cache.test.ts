/**
 * bin/codeCache.js: the compiled code of the built CLI is kept between runs, in a folder only the user
 * can write to; bad entries cost a compile, never a failure.
 */
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, rein, tempHome } from '../support/cli.js';

let home: string;
let cwd: string;
let cacheDir: string;

beforeEach(async () => {
  ({ home, cwd } = await tempHome());
  cacheDir = join(home, 'code-cache');
});

const version = (extra: Record<string, string | undefined>) => rein(['--version'], { env: cleanEnv({ REIN_HOME: home, ...extra }), cwd });
const entries = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((f) => !f.endsWith('.tmp'));

describe('the CLI code cache', () => {
  it('writes entries on the first run (folder 0700, files 0600) and reuses them on the next', async () => {
    const first = await version({ REIN_CODE_CACHE: cacheDir });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const written = await entries(cacheDir);
    expect(written.length).toBeGreaterThan(0);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    for (const f of written) expect((await stat(join(cacheDir, f))).mode & 0o777).toBe(0o600);
    const times = new Map(await Promise.all(written.map(async (f) => [f, (await stat(join(cacheDir, f))).mtimeMs] as const)));

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
    const times = new Map(await Promise.all(written.map(async (f) => [f, (await stat(join(cacheDir, f))).mtimeMs] as const)));
    expect((await check()).stdout).toBe(first.stdout);
    // Data saved under the flags every run starts with is accepted: nothing is written again.
    for (const f of written) expect((await stat(join(cacheDir, f))).mtimeMs).toBe(times.get(f));
  });

  it('recompiles and replaces an entry V8 rejects', async () => {
    await version({ REIN_CODE_CACHE: cacheDir });
    const [victim] = await entries(cacheDir);
    await writeFile(join(cacheDir, victim!), 'not V8 cached data');
    const r = await version({ REIN_CODE_CACHE: cacheDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(join(cacheDir, victim!), 'utf8')).startsWith('not V8')).toBe(false);
  });

  it('uses no folder that another user could write to, and none at all when off', async () => {
    await mkdir(cacheDir, { recursive: true });
    await chmod(cacheDir, 0o777);
    expect((await version({ REIN_CODE_CACHE: cacheDir })).code).toBe(0);
    expect(await entries(cacheDir)).toEqual([]);

    const elsewhere = join(home, 'xdg');
    const off = await version({ REIN_CODE_CACHE: 'off', XDG_CACHE_HOME: elsewhere, HOME: home });
    expect(off.code).toBe(0);
    expect(await entries(join(elsewhere, 'rein', 'code'))).toEqual([]);
  });
});
