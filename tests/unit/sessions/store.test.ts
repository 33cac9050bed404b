import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReinError, isReinError } from '../../../src-main/core/errors.js';
import { isSessionId } from '../../../src-main/core/sessions/id.js';
import { SessionStore, type SessionProblem } from '../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';

let root: string;
let dir: string;
let clock: number;
const now = () => new Date(clock);
const tick = (ms = 1000) => {
  clock += ms;
};

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-sessions-'));
  dir = join(root, 'sessions');
  clock = Date.UTC(2026, 2, 8, 12, 0, 0);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function store(onProblem?: (p: SessionProblem) => void) {
  return new SessionStore(dir, { now, ...(onProblem ? { onProblem } : {}) });
}

function withTurn(s: SessionFile, prompt: string, answer: string): SessionFile {
  const at = now().toISOString();
  s.messages.push({ role: 'user', content: prompt }, { role: 'assistant', content: [{ type: 'text', text: answer }] });
  s.message_meta.push({ source: 'local', timestamp: at }, { source: 'local', timestamp: at });
  return s;
}

async function expectReinError(p: Promise<unknown> | (() => unknown), code: string): Promise<ReinError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(isReinError(e), String(e)).toBe(true);
    expect((e as ReinError).code).toBe(code);
    return e as ReinError;
  }
  throw new Error(`expected ReinError ${code}`);
}

describe('SessionStore', () => {
  it('creates a session in memory only', async () => {
    const s = store().create({ agent: 'default', cwd: '/work', source: 'local' });
    expect(isSessionId(s.id)).toBe(true);
    expect(s).toMatchObject({
      version: 1,
      agent: 'default',
      title: 'New session',
      cwd: '/work',
      source: 'local',
      created_at: '2026-03-08T12:00:00.000Z',
      updated_at: '2026-03-08T12:00:00.000Z',
      messages: [],
      message_meta: [],
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
        cost_usd: 0,
        requests: 0,
      },
    });
    expect(s).not.toHaveProperty('channel');
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps a given title and channel', () => {
    const s = store().create({ agent: 'ops', cwd: '/', source: 'slack', channel: 'C123', title: 'Deploy' });
    expect(s.title).toBe('Deploy');
    expect(s.channel).toBe('C123');
  });

  it('refuses a create without an agent, naming the field', async () => {
    const e = await expectReinError(() => store().create({ agent: '', cwd: '/', source: 'local' }), 'invalid_input');
    expect(e.message).toContain('agent');
  });

  it('saves 2-space JSON with mode 0600 in a 0700 folder and loads it back equal', async () => {
    const st = store();
    const s = withTurn(st.create({ agent: 'default', cwd: '/w', source: 'local' }), 'hi', 'hello');
    await st.save(s);
    const file = join(dir, `${s.id}.json`);
    const text = await readFile(file, 'utf8');
    expect(text).toBe(`${JSON.stringify(s, null, 2)}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await st.load(s.id)).toEqual(s);
  });

  it('stamps updated_at on save, on disk and on the object', async () => {
    const st = store();
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    tick(5000);
    await st.save(s);
    expect(s.updated_at).toBe('2026-03-08T12:00:05.000Z');
    expect(s.created_at).toBe('2026-03-08T12:00:00.000Z');
    expect((await st.load(s.id)).updated_at).toBe('2026-03-08T12:00:05.000Z');
  });

  it('keeps a checkpoint and fields it does not know through a load/save round trip', async () => {
    const st = store();
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    const withExtras = { ...s, checkpoint: { summary: 'so far', tail: [1, 2] }, pinned: true };
    await st.save(withExtras);
    const loaded = await st.load(s.id);
    await st.save(loaded);
    const raw = JSON.parse(await readFile(join(dir, `${s.id}.json`), 'utf8'));
    expect(raw.checkpoint).toEqual({ summary: 'so far', tail: [1, 2] });
    expect(raw.pinned).toBe(true);
  });

  it('keeps every field of content blocks it does not model', async () => {
    const st = store();
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    const at = now().toISOString();
    s.messages.push(
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a\nb', is_error: false }] },
    );
    s.message_meta.push(
      { source: 'local', timestamp: at },
      { source: 'local', timestamp: at },
      { source: 'local', timestamp: at, injected: true },
    );
    await st.save(s);
    expect((await st.load(s.id)).messages).toEqual(s.messages);
  });

  it('reports a missing session as session_not_found', async () => {
    const e = await expectReinError(store().load('2026-03-08-000000000000'), 'session_not_found');
    expect(e.message).toContain('2026-03-08-000000000000');
  });

  it('reports invalid JSON as session_corrupt naming the file, and leaves the file alone', async () => {
    const id = '2026-03-08-aaaaaaaaaaaa';
    const file = join(dir, `${id}.json`);
    await mkdir(dir, { recursive: true });
    await writeFile(file, '{"version": 1, "id": ');
    const e = await expectReinError(store().load(id), 'session_corrupt');
    expect(e.message).toContain(file);
    expect(e.details).toMatchObject({ file });
    expect(await readFile(file, 'utf8')).toBe('{"version": 1, "id": ');
  });

  it('reports a schema problem as session_corrupt naming file and field, and leaves the file alone', async () => {
    const st = store();
    const s = withTurn(st.create({ agent: 'default', cwd: '/w', source: 'local' }), 'q', 'a');
    await st.save(s);
    const file = join(dir, `${s.id}.json`);
    const raw = JSON.parse(await readFile(file, 'utf8'));
    raw.messages[1].role = 'system';
    const broken = JSON.stringify(raw, null, 2);
    await writeFile(file, broken);
    const e = await expectReinError(st.load(s.id), 'session_corrupt');
    expect(e.message).toBe(`${file}: messages[1].role: expected one of user|assistant`);
    expect(e.details).toMatchObject({ file, field: 'messages[1].role' });
    expect(await readFile(file, 'utf8')).toBe(broken);
  });

  it('names the exact block field that is wrong inside a message', async () => {
    const st = store();
    const s = withTurn(st.create({ agent: 'default', cwd: '/w', source: 'local' }), 'q', 'a');
    await st.save(s);
    const file = join(dir, `${s.id}.json`);
    const raw = JSON.parse(await readFile(file, 'utf8'));
    raw.messages[1].content = [{ text: 'no type' }];
    raw.messages[0].content = 42;
    await writeFile(file, JSON.stringify(raw));
    const e = await expectReinError(st.load(s.id), 'session_corrupt');
    expect(e.message.split('\n')).toEqual([
      `${file}: messages[0].content: expected string or array, got number 42`,
      `${file}: messages[1].content[0].type: missing (expected string)`,
    ]);
  });

  it('treats meta that is not aligned with the messages as corrupt', async () => {
    const st = store();
    const s = withTurn(st.create({ agent: 'default', cwd: '/w', source: 'local' }), 'q', 'a');
    await st.save(s);
    const file = join(dir, `${s.id}.json`);
    const raw = JSON.parse(await readFile(file, 'utf8'));
    raw.message_meta.pop();
    await writeFile(file, JSON.stringify(raw));
    const e = await expectReinError(st.load(s.id), 'session_corrupt');
    expect(e.details).toMatchObject({ field: 'message_meta' });
  });

  it('treats a file whose id differs from its name as corrupt', async () => {
    const st = store();
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    await st.save(s);
    const other = '2026-03-08-bbbbbbbbbbbb';
    await writeFile(join(dir, `${other}.json`), await readFile(join(dir, `${s.id}.json`)));
    const e = await expectReinError(st.load(other), 'session_corrupt');
    expect(e.details).toMatchObject({ field: 'id' });
  });

  it('refuses to save an invalid session and writes nothing', async () => {
    const st = store();
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    s.messages.push({ role: 'user', content: 'no meta for me' });
    const e = await expectReinError(st.save(s), 'invalid_input');
    expect(e.message).toContain('message_meta');
    await expect(stat(join(dir, `${s.id}.json`))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps the previous file whole when the new content cannot be serialised, leaving no temp files', async () => {
    const st = store();
    const s = withTurn(st.create({ agent: 'default', cwd: '/w', source: 'local' }), 'q', 'a');
    await st.save(s);
    const file = join(dir, `${s.id}.json`);
    const before = await readFile(file, 'utf8');
    const previousStamp = s.updated_at;
    tick();
    s.checkpoint = { tokens: 10n }; // JSON cannot hold a BigInt
    await expectReinError(st.save(s), 'invalid_input');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(s.updated_at).toBe(previousStamp);
    expect(await readdir(dir)).toEqual([`${s.id}.json`]);
  });

  it('survives many overlapping saves of one session with a whole file and no temp files', async () => {
    const st = store();
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => st.save({ ...s, title: `title ${i}`, messages: [...s.messages] })),
    );
    const loaded = await st.load(s.id);
    expect(loaded.title).toMatch(/^title \d+$/);
    expect(await readdir(dir)).toEqual([`${s.id}.json`]);
  });

  it('lists sessions newest update first, skipping other files and reporting corrupt ones', async () => {
    const problems: SessionProblem[] = [];
    const st = store((p) => problems.push(p));
    expect(await st.list()).toEqual([]); // folder does not exist yet

    const a = st.create({ agent: 'default', cwd: '/a', source: 'local', title: 'A' });
    tick();
    const b = st.create({ agent: 'default', cwd: '/b', source: 'slack', channel: 'C1', title: 'B' });
    tick();
    const c = st.create({ agent: 'default', cwd: '/c', source: 'local', title: 'C' });
    await st.save(b);
    tick();
    await st.save(withTurn(a, 'q', 'r'));
    tick();
    await st.save(c);
    tick();
    await st.save(b); // b is now the most recently updated

    await writeFile(join(dir, '2026-03-08-cccccccccccc.json'), 'not json');
    await writeFile(join(dir, 'notes.json'), '{}');
    await writeFile(join(dir, 'sessions.db'), '');
    await mkdir(st.sideDir(a.id));

    const list = await st.list();
    expect(list.map((x) => x.title)).toEqual(['B', 'C', 'A']);
    expect(list[0]).toEqual({
      id: b.id,
      agent: 'default',
      title: 'B',
      cwd: '/b',
      source: 'slack',
      channel: 'C1',
      created_at: b.created_at,
      updated_at: b.updated_at,
      messageCount: 0,
    });
    expect(list[2]!.messageCount).toBe(2);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.file).toBe(join(dir, '2026-03-08-cccccccccccc.json'));
    expect(problems[0]!.error.code).toBe('session_corrupt');

    expect((await st.latest())?.id).toBe(b.id);
  });

  it('lists damaged files as damaged with their problem and what can still be read of them', async () => {
    const problems: SessionProblem[] = [];
    const st = store((p) => problems.push(p));
    const good = withTurn(st.create({ agent: 'default', cwd: '/g', source: 'cli', title: 'Good one' }), 'q', 'r');
    await st.save(good);
    tick();
    const cut = withTurn(
      st.create({ agent: 'default', cwd: '/c', source: 'slack', channel: 'C9', title: 'Cut "short"' }),
      'a long question',
      'a long answer',
    );
    await st.save(cut);
    const whole = await readFile(join(dir, `${cut.id}.json`), 'utf8');
    await writeFile(join(dir, `${cut.id}.json`), whole.slice(0, whole.indexOf('"messages"') + 20));
    const invalid = '2026-03-08-dddddddddddd';
    await writeFile(
      join(dir, `${invalid}.json`),
      JSON.stringify({ version: 1, id: invalid, title: 'Half a session', updated_at: 'not a time' }),
    );
    const garbage = '2026-03-08-eeeeeeeeeeee';
    await writeFile(join(dir, `${garbage}.json`), '\u0000\u0001 not json at all');

    const list = await st.listWithDamaged();
    expect(list).toHaveLength(4);
    const byId = new Map(list.map((x) => [x.id, x]));
    expect(byId.get(good.id)).toMatchObject({ title: 'Good one', messageCount: 2 });
    expect(byId.get(cut.id)).toMatchObject({
      damaged: true,
      title: 'Cut "short"',
      source: 'slack',
      channel: 'C9',
      cwd: '/c',
      created_at: cut.created_at,
      updated_at: cut.updated_at,
    });
    expect((byId.get(cut.id) as { problem: string }).problem).toMatch(/^not valid JSON/);
    expect((byId.get(cut.id) as { problem: string }).problem).not.toContain(dir);
    expect(byId.get(invalid)).toMatchObject({
      damaged: true,
      title: 'Half a session',
      file: join(dir, `${invalid}.json`),
    });
    // A time that is not a time is not believed: the file's modification time stands in.
    expect(Number.isNaN(Date.parse(byId.get(invalid)!.updated_at))).toBe(false);
    expect(byId.get(garbage)).toMatchObject({ damaged: true });
    expect(problems).toHaveLength(3);
    // The files are left exactly as they were, and list() still skips them.
    expect(await readFile(join(dir, `${garbage}.json`), 'utf8')).toBe('\u0000\u0001 not json at all');
    expect((await st.list()).map((x) => x.id)).toEqual([good.id]);
    expect(await st.inspect('2026-03-08-ffffffffffff')).toBeUndefined();
  });

  it('has no latest session in an empty folder', async () => {
    expect(await store().latest()).toBeUndefined();
  });

  it('deletes the file and its side folder', async () => {
    const st = store();
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    await st.save(s);
    const side = st.sideDir(s.id);
    expect(side).toBe(join(dir, s.id));
    await expect(stat(side)).rejects.toMatchObject({ code: 'ENOENT' }); // not created until used
    await mkdir(side);
    await writeFile(join(side, 'tool-1.txt'), 'big output');
    await st.delete(s.id);
    expect(await readdir(dir)).toEqual([]);
    await expectReinError(st.load(s.id), 'session_not_found');
    await expectReinError(st.delete(s.id), 'session_not_found');
  });

  it('refuses ids that are not session ids before touching any path', async () => {
    const st = store();
    const victim = join(root, 'victim.json');
    await writeFile(victim, 'keep me');
    const s = st.create({ agent: 'default', cwd: '/w', source: 'local' });
    for (const bad of ['../victim', '..', 'a/b', '', '2026-03-08-aaaaaaaaaaaa/../../victim']) {
      await expectReinError(st.load(bad), 'invalid_input');
      await expectReinError(st.delete(bad), 'invalid_input');
      await expectReinError(() => st.sideDir(bad), 'invalid_input');
      await expectReinError(st.save({ ...s, id: bad }), 'invalid_input');
    }
    expect(await readFile(victim, 'utf8')).toBe('keep me');
  });
});
