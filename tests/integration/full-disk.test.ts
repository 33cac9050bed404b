/**
 * A full disk (issue 26, item 2), on a real 2 MB tmpfs filled to the last byte: `rein run` fails with
 * "rein: cannot save session S to FILE: no space left on device" and exit 1; the daemon answers the
 * message with a JSON error and stays up (GET /status answers, daemon.json is intact); `rein sessions
 * list / show / search` still work, with the index read as it is or the session files read directly;
 * nothing already saved changes, and no temp file is left. With room again, everything goes on.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, rein, startRein } from '../support/cli.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { mountSmallDisk, requireSmallDisk, smallDiskUnavailable, type SmallDisk } from '../support/smallDisk.js';
import { http } from './daemon/support.js';

const skip = smallDiskUnavailable !== undefined && process.env.CI !== 'true';

let disk: SmallDisk;
let fake: FakeAnthropic;
let run = 0;
beforeAll(async () => {
  if (skip) return;
  requireSmallDisk();
  disk = await mountSmallDisk(2 * 1024 * 1024);
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake?.close();
  disk?.unmount();
});

/** A fresh REIN_HOME and working folder on the small disk. */
function world() {
  run++;
  const home = join(disk.dir, `home${run}`);
  const cwd = join(disk.dir, `work${run}`);
  const env = cleanEnv({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, REIN_HOME: home });
  return { home, cwd, env };
}

/** The error of a /message answer: a run result's `error`, or an error body's `{error, code}`. */
function runError(body: any): { code: string; message: string } | undefined {
  if (body?.error && typeof body.error === 'object') return { code: body.error.code, message: body.error.message };
  if (typeof body?.error === 'string') return { code: body.code, message: body.error };
  return undefined;
}

const tempFiles = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.tmp'));

describe.skipIf(skip)(`rein on a full disk${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`, () => {
  afterEach(async () => {
    await disk.free();
  });

  it('rein run fails naming the session and file; list, show and search still work; the saved file is unchanged', async () => {
    const { home, cwd, env } = world();
    await import('node:fs/promises').then((fs) => fs.mkdir(cwd, { recursive: true }));
    fake.enqueue(text('Lighthouses guide ships at night.'));
    const first = await rein(['run', 'tell me about lighthouses'], { env, cwd });
    expect(first.code, first.stderr).toBe(0);
    // The index exists (a listing builds it), as it does on any machine that has searched once.
    const listed = JSON.parse((await rein(['sessions', 'list', '--json'], { env, cwd })).stdout) as Array<{
      id: string;
    }>;
    expect(listed).toHaveLength(1);
    const id = listed[0]!.id;
    const dir = join(home, 'sessions');
    const file = join(dir, `${id}.json`);
    const before = await readFile(file);

    await disk.fill();
    // No model call follows a save that failed: nothing is queued for these runs.
    const asked = fake.requests.length;
    const again = await rein(['run', '--session', id, 'and their keepers?'], { env, cwd });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain(`rein: cannot save session ${id} to ${file}: no space left on device`);
    expect(again.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect((await readFile(file)).equals(before)).toBe(true);
    expect(await tempFiles(dir)).toEqual([]);

    // Room for the session's lock but not for the session: the loop's own save fails, the same way.
    await disk.free();
    await disk.fill({ leave: 4096 });
    const tight = await rein(['run', '--session', id, 'and their keepers?'], { env, cwd });
    expect(tight.code, tight.stderr).toBe(1);
    expect(tight.stderr).toContain(`rein: cannot save session ${id} to ${file}: no space left on device`);
    expect((await readFile(file)).equals(before)).toBe(true);
    expect(await tempFiles(dir)).toEqual([]);
    await disk.free();
    await disk.fill();

    const fresh = await rein(['run', 'a brand new question'], { env, cwd });
    expect(fresh.code, fresh.stderr).toBe(1);
    expect(fake.requests.length).toBe(asked);
    expect(fresh.stderr).toMatch(
      new RegExp(`rein: cannot save session \\S+ to ${dir}/\\S+\\.json: no space left on device`),
    );
    expect((await readdir(dir)).filter((n) => n.endsWith('.json'))).toEqual([`${id}.json`]);

    // Reads work on the full disk, and say at most once that the index could not be updated.
    const list = await rein(['sessions', 'list', '--json'], { env, cwd });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject([{ id, title: 'tell me about lighthouses' }]);
    expect((list.stderr.match(/could not be/g) ?? []).length).toBeLessThanOrEqual(1);
    const show = await rein(['sessions', 'show', id], { env, cwd });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('Lighthouses guide ships at night.');
    const search = await rein(['sessions', 'search', 'lighthouse', '--json'], { env, cwd });
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout)).toMatchObject([{ session_id: id }]);
    expect((await readFile(file)).equals(before)).toBe(true);

    // Room again: the session goes on from where it was saved.
    await disk.free();
    fake.enqueue(text('Keepers lived in the tower.'));
    const later = await rein(['run', '--session', id, 'and their keepers?'], { env, cwd });
    expect(later.code, later.stderr).toBe(0);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { messages: unknown[] };
    expect(saved.messages).toHaveLength(4);
  });

  it('with no index yet, a search on a full disk reads the session files directly and says so once', async () => {
    const { home, cwd, env } = world();
    await import('node:fs/promises').then((fs) => fs.mkdir(cwd, { recursive: true }));
    fake.enqueue(text('Saffron is the stigma of a crocus.'));
    expect((await rein(['run', 'where does saffron come from'], { env, cwd })).code).toBe(0);
    for (const name of await readdir(home)) if (name.startsWith('rein.db')) await rm(join(home, name), { force: true });

    await disk.fill();
    const search = await rein(['sessions', 'search', 'saffron', '--json'], { env, cwd });
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout)).toHaveLength(1);
    expect(
      search.stderr.match(
        /rein: warning: the search index \S+ could not be (written|updated) \(no space left on device\)/g,
      ),
    ).toHaveLength(1);
    const list = await rein(['sessions', 'list'], { env, cwd });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('where does saffron come from');
  });
});

describe.skipIf(skip)(
  `the daemon on a full disk${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`,
  () => {
    const children: ReturnType<typeof startRein>[] = [];
    afterEach(async () => {
      await disk.free();
      for (const c of children.splice(0)) {
        if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
        await c.done;
      }
    });

    it('answers the message with a JSON error naming the file, stays up, and keeps daemon.json and the session', async () => {
      const { home, cwd, env } = world();
      await import('node:fs/promises').then((fs) => fs.mkdir(cwd, { recursive: true }));
      const proc = startRein(['daemon', '--port', '0', '--cwd', cwd], { env, cwd });
      children.push(proc);
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        proc.child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        void proc.done.then((r) => reject(new Error(`daemon exited early (${r.code}): ${r.stderr}`)));
      });
      const infoBytes = await readFile(join(home, 'daemon.json'));
      const d = { port, token: (JSON.parse(infoBytes.toString('utf8')) as { token: string }).token };

      fake.enqueue(text('Bees dance to share where flowers are.'));
      const first = await http(d, 'POST', '/message', { body: { text: 'how do bees talk' } });
      expect(first.status, first.text).toBe(200);
      expect(first.json).toMatchObject({ stop_reason: 'final' });
      const id = first.json.session_id as string;
      const file = join(home, 'sessions', `${id}.json`);
      const before = await readFile(file);

      await disk.fill();
      const asked = fake.requests.length;
      // The message is answered with JSON naming the session's file: the run's result with its error, or
      // (when the run could not even take its session) an error body with status 507.
      const full = await http(d, 'POST', '/message', { body: { text: 'and ants?', session_id: id } });
      expect([200, 507], full.text).toContain(full.status);
      expect(runError(full.json), full.text).toEqual({
        code: 'disk_full',
        message: `cannot save session ${id} to ${file}: no space left on device`,
      });
      if (full.status === 200) expect(full.json).toMatchObject({ session_id: id, stop_reason: 'error' });
      // A new conversation fails the same way.
      const other = await http(d, 'POST', '/message', { body: { text: 'something else' } });
      expect(runError(other.json), other.text).toMatchObject({
        code: 'disk_full',
        message: expect.stringMatching(/^cannot save session \S+ to \S+\.json: no space left on device$/),
      });
      // Room for the session's lock but not for the session: the run itself fails its save, and its
      // result says so.
      await disk.free();
      await disk.fill({ leave: 4096 });
      const run = await http(d, 'POST', '/message', { body: { text: 'and wasps?', session_id: id } });
      expect(run.status, run.text).toBe(200);
      expect(run.json).toMatchObject({
        session_id: id,
        stop_reason: 'error',
        error: { code: 'disk_full', message: `cannot save session ${id} to ${file}: no space left on device` },
      });
      expect(fake.requests.length).toBe(asked);

      // Still up, still itself.
      const status = await http(d, 'GET', '/status');
      expect(status.status).toBe(200);
      expect(proc.child.exitCode).toBeNull();
      expect((await readFile(join(home, 'daemon.json'))).equals(infoBytes)).toBe(true);
      expect((await readFile(file)).equals(before)).toBe(true);
      expect(await tempFiles(join(home, 'sessions'))).toEqual([]);
      // Reads answer on the full disk.
      const sessions = await http(d, 'GET', '/sessions');
      expect(sessions.status, sessions.text).toBe(200);
      expect(sessions.json.sessions.map((s: { id: string }) => s.id)).toContain(id);
      const one = await http(d, 'GET', `/sessions/${id}`);
      expect(one.status, one.text).toBe(200);
      const found = await http(d, 'GET', '/sessions/search?q=bees');
      expect(found.status, found.text).toBe(200);
      expect(found.json.results.map((r: { session_id: string }) => r.session_id)).toEqual([id]);

      // Room again: the same route goes on.
      await disk.free();
      fake.enqueue(text('Ants leave scent trails.'));
      const later = await http(d, 'POST', '/message', { body: { text: 'and ants?', session_id: id } });
      expect(later.json, later.text).toMatchObject({ session_id: id, stop_reason: 'final' });
      expect((JSON.parse(await readFile(file, 'utf8')) as { messages: unknown[] }).messages).toHaveLength(4);

      proc.child.kill('SIGTERM');
      expect((await proc.done).code).toBe(0);
      expect(proc.child.signalCode).toBeNull();
    });
  },
);
