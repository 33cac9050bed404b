import { existsSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isReinError } from '../../../src-main/core/errors.js';
import { paths } from '../../../src-main/core/config/paths.js';
import { SCHEMA_VERSION } from '../../../src-main/core/search/schema.js';
import { SessionIndex, indexFile, type SearchHit } from '../../../src-main/core/search/sessionIndex.js';
import { appendTurn, makeTempHome, type TempHome } from './sessionFixtures.js';

let t: TempHome;
const open: SessionIndex[] = [];

async function openIndex(): Promise<SessionIndex> {
  const idx = await SessionIndex.open(t.home);
  open.push(idx);
  return idx;
}

/** Indexes every session file of the temp home (what a fresh open does). */
async function indexAll(): Promise<SessionIndex> {
  const idx = await openIndex();
  await idx.reindex();
  return idx;
}

const ids = (hits: readonly SearchHit[]) => hits.map((h) => h.sessionId);

beforeEach(async () => {
  t = await makeTempHome();
});
afterEach(async () => {
  for (const idx of open.splice(0)) idx.dispose();
  await t.cleanup();
});

describe('SessionIndex search', () => {
  it('matches English words by their stem: "running" finds "runs" and marks the match', async () => {
    const a = await t.save({
      turns: [{ user: 'How often the nightly job runs on the build server?', answer: 'It is scheduled at 02:00.' }],
    });
    await t.save({ turns: [{ user: 'Write a haiku about autumn leaves', answer: 'Red leaves drift slowly' }] });
    const idx = await indexAll();

    const hits = idx.search('running', { agent: 'default' });
    expect(ids(hits)).toEqual([a.id]);
    expect(hits[0]).toMatchObject({ match: 'words', role: 'user', agent: 'default', source: 'cli', msgIndex: 0 });
    expect(hits[0]!.snippet).toContain('>>>runs<<<');
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('finds Chinese text by a substring in the middle of a sentence', async () => {
    const zh = await t.save({
      turns: [{ user: '我们今天讨论了数据库迁移的问题，明天继续', answer: '好的，我会准备迁移脚本。' }],
    });
    await t.save({ turns: [{ user: '今天天气很好', answer: '是的' }] });
    const idx = await indexAll();

    const hits = idx.search('数据库迁移', { agent: 'default' });
    expect(ids(hits)).toEqual([zh.id]);
    expect(hits[0]).toMatchObject({ match: 'substring' });
    expect(hits[0]!.snippet).toContain('>>>数据库迁移<<<');
    expect(ids(idx.search('迁移脚本', { agent: 'default' }))).toEqual([zh.id]);
  });

  it('finds Japanese text by a substring (kanji and kana)', async () => {
    const ja = await t.save({
      turns: [{ user: '東京都の天気予報を確認してください', answer: '明日は晴れのち曇りです。' }],
    });
    await t.save({ turns: [{ user: '大阪の地図を開いて', answer: 'はい' }] });
    const idx = await indexAll();

    expect(ids(idx.search('天気予報', { agent: 'default' }))).toEqual([ja.id]);
    expect(ids(idx.search('晴れのち', { agent: 'default' }))).toEqual([ja.id]);
    expect(idx.search('天気予報', { agent: 'default' })[0]!.snippet).toContain('>>>天気予報<<<');
  });

  it('answers queries shorter than three characters with a LIKE scan (CJK and Latin)', async () => {
    const zh = await t.save({ turns: [{ user: '整理一下数据', answer: '完成' }] });
    const ja = await t.save({ turns: [{ user: '明日の天気は？', answer: '晴れ' }] });
    const idx = await indexAll();

    const zhHits = idx.search('数据', { agent: 'default' });
    expect(ids(zhHits)).toEqual([zh.id]);
    expect(zhHits[0]).toMatchObject({ match: 'short' });
    expect(zhHits[0]!.snippet).toContain('>>>数据<<<');

    expect(ids(idx.search('天気', { agent: 'default' }))).toEqual([ja.id]);
    expect(ids(idx.search(' 晴 ', { agent: 'default' }))).toEqual([ja.id]); // trimmed: one character
    // A short term next to a long one filters the substring matches.
    expect(ids(idx.search('整理一下 数据', { agent: 'default' }))).toEqual([zh.id]);
    expect(idx.search('整理一下 晴れ', { agent: 'default' })).toEqual([]);
  });

  it('matches a short Latin word as a whole word, and as a substring only when no whole word matches', async () => {
    const word = await t.save({ turns: [{ user: 'Should we write the service in Go?', answer: 'Yes, Go fits.' }] });
    const inside = await t.save({ turns: [{ user: 'Open the Google docs page', answer: 'Opened.' }] });
    const idx = await indexAll();

    expect(idx.search('go', { agent: 'default' }).map((h) => [h.sessionId, h.match])).toEqual([[word.id, 'words']]);
    const sub = idx.search('oo', { agent: 'default' });
    expect(sub.map((h) => [h.sessionId, h.match])).toEqual([[inside.id, 'short']]);
    expect(sub[0]!.snippet).toContain('G>>>oo<<<gle');
  });

  it('falls back to substrings when whole words find nothing: "figura" finds "configuration"', async () => {
    const partial = await t.save({ turns: [{ user: 'Explain the configuration loader', answer: 'It reads YAML.' }] });
    const exact = await t.save({ turns: [{ user: 'Where does the config live?', answer: 'In REIN_HOME.' }] });
    const idx = await indexAll();

    expect(idx.search('config', { agent: 'default' }).map((h) => [h.sessionId, h.match])).toEqual([
      [exact.id, 'words'],
    ]);
    expect(idx.search('figura', { agent: 'default' }).map((h) => [h.sessionId, h.match])).toEqual([
      [partial.id, 'substring'],
    ]);
    expect(
      idx
        .search('onfig', { agent: 'default' })
        .map((h) => h.sessionId)
        .sort(),
    ).toEqual([exact.id, partial.id].sort());
  });

  it('ignores case and accents', async () => {
    const s = await t.save({ turns: [{ user: 'Meet at the Café Noir', answer: 'OK' }] });
    const idx = await indexAll();
    expect(ids(idx.search('cafe noir', { agent: 'default' }))).toEqual([s.id]);
    expect(ids(idx.search('CAFÉ', { agent: 'default' }))).toEqual([s.id]);
    expect(idx.search('AFE', { agent: 'default' })[0]).toMatchObject({ sessionId: s.id, match: 'substring' });
  });

  it('requires every term in the same message and keeps "quoted phrases" together', async () => {
    const both = await t.save({ turns: [{ user: 'deploy the staging server tonight', answer: 'Done.' }] });
    await t.save({ turns: [{ user: 'deploy the website', answer: 'The staging area is clean.' }] });
    const idx = await indexAll();

    expect(ids(idx.search('deploy staging', { agent: 'default' }))).toEqual([both.id]);
    expect(ids(idx.search('"staging server"', { agent: 'default' }))).toEqual([both.id]);
    expect(idx.search('"server staging"', { agent: 'default' })).toEqual([]);
  });

  it('returns one hit per session, best-ranked first, up to the limit', async () => {
    const many = await t.save({
      turns: [
        { user: 'kubernetes pod crash', answer: 'kubernetes restarted the pod' },
        { user: 'kubernetes again: kubernetes kubernetes', answer: 'ok' },
      ],
    });
    const once = await t.save({
      turns: [
        {
          user: 'A long note that mentions kubernetes exactly once among many other words about lunch, coffee and the weather',
          answer: 'noted',
        },
      ],
    });
    const idx = await indexAll();

    const hits = idx.search('kubernetes', { agent: 'default' });
    expect(ids(hits)).toEqual([many.id, once.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(idx.search('kubernetes', { agent: 'default', limit: 1 })).toHaveLength(1);
  });

  it('keeps ranking further matches when the most recent ones all come from one session', async () => {
    const old = await t.save({ turns: [{ user: 'a zeppelin over the lake', answer: 'ok' }] });
    const chatty = await t.save({
      turns: Array.from({ length: 200 }, (_, i) => ({
        user: `zeppelin question ${i}`,
        answer: `zeppelin answer ${i}`,
      })),
    });
    const idx = await indexAll();

    const hits = idx.search('zeppelin', { agent: 'default' });
    expect(new Set(ids(hits))).toEqual(new Set([old.id, chatty.id]));
    expect(hits.every((h) => h.match === 'words')).toBe(true);
  });

  it('ranks sessions that mention a word in the conversation before those where only a tool printed it', async () => {
    const said = await t.save({ turns: [{ user: 'is the gazebo order confirmed?', answer: 'Yes.' }] });
    const printed = await t.save({
      turns: [
        {
          user: 'list the orders',
          tools: [{ name: 'bash', input: { command: 'cat orders.txt' }, output: 'gazebo gazebo gazebo\ngazebo' }],
          answer: 'Four lines.',
        },
      ],
    });
    const idx = await indexAll();

    const hits = idx.search('gazebo', { agent: 'default' });
    expect(hits.map((h) => [h.sessionId, h.role])).toEqual([
      [said.id, 'user'],
      [printed.id, 'tool_result'],
    ]);
  });

  it('matches the last term as a prefix only when asked', async () => {
    const s = await t.save({ turns: [{ user: 'Plan the deployment of the new API', answer: 'Planned.' }] });
    const idx = await indexAll();

    expect(ids(idx.search('plan deplo', { agent: 'default', prefix: true }))).toEqual([s.id]);
    expect(idx.search('plan deplo', { agent: 'default' }).every((h) => h.match !== 'words')).toBe(true);
  });

  it('filters by the source a session started from', async () => {
    const cli = await t.save({
      source: 'cli',
      turns: [{ user: 'check the backup disk', answer: 'Backup disk is 40% full.' }],
    });
    const sched = await t.save({
      source: 'schedule',
      turns: [{ user: 'Daily: check the backup disk', answer: 'Backup ok.' }],
    });
    const beat = await t.save({
      source: 'heartbeat',
      turns: [{ user: 'Heartbeat: backup disk status', answer: 'HEARTBEAT_OK backup fine' }],
    });
    const idx = await indexAll();

    expect(new Set(ids(idx.search('backup', { agent: 'default' })))).toEqual(new Set([cli.id, sched.id, beat.id]));
    expect(ids(idx.search('backup', { agent: 'default', source: 'schedule' }))).toEqual([sched.id]);
    expect(ids(idx.search('backup', { agent: 'default', source: 'heartbeat' }))).toEqual([beat.id]);
    expect(ids(idx.search('backup', { agent: 'default', source: 'cli' }))).toEqual([cli.id]);
    expect(idx.search('backup', { agent: 'default', source: 'slack' })).toEqual([]);
    // Every stage honours the filter, the short one too.
    expect(ids(idx.search('40', { agent: 'default', source: 'schedule' }))).toEqual([]);
    expect(ids(idx.search('40', { agent: 'default', source: 'cli' }))).toEqual([cli.id]);
    expect(idx.list({ source: 'heartbeat' }).map((s) => s.id)).toEqual([beat.id]);
  });

  it("never returns another agent's sessions, whatever the stage", async () => {
    const mine = await t.save({
      agent: 'research',
      turns: [{ user: 'secret project alpha 数据库 ok', answer: 'noted' }],
    });
    const theirs = await t.save({ agent: 'ops', turns: [{ user: 'secret project alpha 数据库 ok', answer: 'noted' }] });
    const dflt = await t.save({ turns: [{ user: 'secret project alpha 数据库 ok', answer: 'noted' }] });
    const idx = await indexAll();

    for (const q of ['secret project', 'alpha', '数据库', '数据', 'ok', 'proj']) {
      expect(ids(idx.search(q, { agent: 'research' })), q).toEqual([mine.id]);
      expect(ids(idx.search(q, { agent: 'ops' })), q).toEqual([theirs.id]);
      expect(ids(idx.search(q, { agent: 'default' })), q).toEqual([dflt.id]);
    }
    expect(idx.search('alpha', { agent: 'nobody' })).toEqual([]);
    expect(idx.list({ agent: 'ops' }).map((s) => s.id)).toEqual([theirs.id]);
    expect(() => idx.search('alpha', { agent: '' })).toThrow(/agent/);
  });

  it('does not let a query string break out into FTS syntax', async () => {
    const cpp = await t.save({
      turns: [{ user: 'Port the C++ parser to Rust', answer: 'The C++ code uses templates.' }],
    });
    const c = await t.save({ turns: [{ user: 'Press Ctrl C to stop; the c flag means compile', answer: 'ok' }] });
    const dash = await t.save({ turns: [{ user: 'rename foo-bar to baz', answer: 'Renamed foo-bar.' }] });
    const colon = await t.save({
      turns: [{ user: 'set key:value in the map and run "make test" AND NOT deploy', answer: 'ok' }],
    });
    const pct = await t.save({ turns: [{ user: 'disk at 95% (warning)', answer: 'cleaned 100_000 files' }] });
    const idx = await indexAll();

    const tricky = [
      'C++',
      'foo-bar',
      'AND',
      'OR',
      'NOT',
      'NEAR(a b)',
      'key:value',
      'content:foo',
      '"',
      '""',
      '"unbalanced',
      "it's",
      '*',
      'foo*',
      '^start',
      '(',
      ')',
      '{a b}',
      '-x',
      '+',
      'a OR b',
      '%',
      '_',
      '\\',
      '5%',
      '1_0',
      '🙂',
      '\u0000',
      '"make test"',
      'col : val',
      ':',
      'a AND',
      'NOT deploy',
      '[x]',
      "'; DROP TABLE sessions; --",
    ];
    for (const q of tricky) expect(() => idx.search(q, { agent: 'default' }), q).not.toThrow();

    expect(ids(idx.search('C++', { agent: 'default' }))).toEqual([cpp.id]); // not every lone "c"
    expect(ids(idx.search('c', { agent: 'default' }))).toContain(c.id);
    expect(ids(idx.search('foo-bar', { agent: 'default' }))).toEqual([dash.id]);
    expect(ids(idx.search('key:value', { agent: 'default' }))).toEqual([colon.id]);
    expect(ids(idx.search('AND NOT', { agent: 'default' }))).toEqual([colon.id]); // literal words, not operators
    expect(ids(idx.search('"make test"', { agent: 'default' }))).toEqual([colon.id]);
    // LIKE wildcards are literal: `%` and `_` match only themselves.
    expect(ids(idx.search('%', { agent: 'default' }))).toEqual([pct.id]);
    expect(ids(idx.search('_', { agent: 'default' }))).toEqual([pct.id]);
    expect(idx.search('   ', { agent: 'default' })).toEqual([]);
    expect(idx.counts().sessions).toBe(5); // the DROP TABLE attempt was only text
  });
});

describe('SessionIndex contents', () => {
  it('indexes the user prompt without the per-turn <context> block', async () => {
    await t.save({ turns: [{ user: 'summarise the quarterly report', answer: 'Done.' }] });
    const idx = await indexAll();
    expect(idx.search('quarterly', { agent: 'default' })).toHaveLength(1);
    expect(idx.search('Europe/Zurich', { agent: 'default' })).toEqual([]);
    expect(idx.search('context', { agent: 'default' })).toEqual([]);
  });

  it('indexes tool calls with their command or path, and tool output cut to 2,000 characters', async () => {
    const long = `headmarker ${'x'.repeat(1980)} ${'y'.repeat(500)} tailmarker`;
    const s = await t.save({
      turns: [
        {
          user: 'what changed?',
          narration: 'Let me look at the repository narrationword first.',
          tools: [
            { name: 'bash', input: { command: 'git status --short' }, output: 'M src/index.ts\n?? notes.md' },
            { name: 'file_read', input: { path: '/etc/hosts' }, output: long },
          ],
          answer: 'Two files changed.',
        },
      ],
    });
    const idx = await indexAll();

    const bash = idx.search('git status', { agent: 'default' });
    expect(ids(bash)).toEqual([s.id]);
    expect(bash[0]).toMatchObject({ role: 'tool_call', msgIndex: 1 });
    expect(bash[0]!.snippet).toContain('bash');
    expect(idx.search('file_read /etc/hosts', { agent: 'default' })[0]).toMatchObject({ role: 'tool_call' });
    expect(idx.search('notes.md', { agent: 'default' })[0]).toMatchObject({ role: 'tool_result', msgIndex: 2 });
    expect(idx.search('headmarker', { agent: 'default' })[0]).toMatchObject({ role: 'tool_result', msgIndex: 2 });
    expect(idx.search('tailmarker', { agent: 'default' })).toEqual([]); // beyond the first 2,000 characters
    expect(idx.search('narrationword', { agent: 'default' })).toEqual([]); // narration before tool calls
    expect(idx.search('Two files changed', { agent: 'default' })[0]).toMatchObject({ role: 'assistant' });
  });

  it('matches substrings in the conversation and in CJK tool output; plain tool output by whole words only', async () => {
    const s = await t.save({
      turns: [
        {
          user: 'upload the quarterly spreadsheet',
          tools: [
            { name: 'bash', input: { command: 'scp q3.xlsx host:' }, output: 'ERROR connection refused by upstream' },
            { name: 'file_read', input: { path: '/tmp/log.txt' }, output: '文件已保存到服务器' },
          ],
          answer: 'The upload was refused.',
        },
      ],
    });
    const idx = await indexAll();

    expect(idx.search('upstream', { agent: 'default' })[0]).toMatchObject({
      sessionId: s.id,
      role: 'tool_result',
      match: 'words',
    });
    expect(idx.search('pstrea', { agent: 'default' })).toEqual([]); // part of a word in plain tool output
    expect(idx.search('arterl', { agent: 'default' })[0]).toMatchObject({ role: 'user', match: 'substring' });
    expect(idx.search('保存到', { agent: 'default' })[0]).toMatchObject({ role: 'tool_result', match: 'substring' });
    expect(idx.search('保存', { agent: 'default' })[0]).toMatchObject({ role: 'tool_result', match: 'short' });
  });

  it("indexes a person's mid-run message but not Rein's own nudges", async () => {
    const s = await t.save({ turns: [{ user: 'start the migration', answer: 'Started.' }] });
    s.messages.push({
      role: 'user',
      content: [{ type: 'text', text: '[New message from user]\nalso rotate the logfiles' }],
    });
    s.message_meta.push({ source: 'cli', timestamp: s.updated_at, injected: true });
    s.messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Rotated.' }] });
    s.message_meta.push({ source: 'cli', timestamp: s.updated_at });
    s.messages.push({
      role: 'user',
      content: [{ type: 'text', text: 'Please continue exactly where you stopped (nudgeword).' }],
    });
    s.message_meta.push({ source: 'cli', timestamp: s.updated_at, injected: true });
    const idx = await openIndex();
    idx.upsert(s);

    const hit = idx.search('logfiles', { agent: 'default' });
    expect(hit[0]).toMatchObject({ role: 'user', msgIndex: 2 });
    expect(hit[0]!.snippet).not.toContain('New message from user');
    expect(idx.search('nudgeword', { agent: 'default' })).toEqual([]);
  });

  it('records the session columns and lists sessions newest first', async () => {
    const first = await t.save({
      source: 'slack',
      channel: 'C123',
      turns: [{ user: 'Hello from Slack', answer: 'Hi' }],
    });
    const second = await t.save({ turns: [{ user: 'Second one', answer: 'ok' }] });
    const idx = await indexAll();

    const list = idx.list({ agent: 'default' });
    expect(list.map((s) => s.id)).toEqual([second.id, first.id]);
    expect(list[1]).toEqual({
      id: first.id,
      agent: 'default',
      title: 'Hello from Slack',
      cwd: '/Users/me/project',
      source: 'slack',
      channel: 'C123',
      created_at: first.created_at,
      updated_at: first.updated_at,
      messageCount: 2,
    });
    expect(idx.search('slack', { agent: 'default' })[0]).toMatchObject({ channel: 'C123', title: 'Hello from Slack' });
    expect(idx.list({ limit: 1 })).toHaveLength(1);
  });
});

describe('SessionIndex upsert and remove', () => {
  it('is idempotent and replaces what was indexed for the session', async () => {
    const s = await t.save({ turns: [{ user: 'tell me about penguins', answer: 'Penguins live in the south.' }] });
    const idx = await openIndex();
    idx.upsert(s);
    const before = idx.counts();
    idx.upsert(s);
    idx.upsert(structuredClone(s));
    expect(idx.counts()).toEqual(before);
    expect(idx.search('penguins', { agent: 'default' })).toHaveLength(1);

    // A new turn is added; an old answer is rewritten (as compaction would).
    appendTurn(s, { user: 'and walruses?', answer: 'Walruses live in the north.' }, 'cli', s.updated_at);
    s.messages[1] = { role: 'assistant', content: [{ type: 'text', text: 'They are flightless birds.' }] };
    idx.upsert(s);
    expect(idx.counts()).toEqual({ sessions: 1, rows: 4 });
    expect(idx.search('walruses', { agent: 'default' })).toHaveLength(1);
    expect(idx.search('flightless', { agent: 'default' })).toHaveLength(1);
    expect(idx.search('south', { agent: 'default' })).toEqual([]);
    expect(idx.list()[0]!.messageCount).toBe(4);
  });

  it('refuses a value that is not a valid session, naming the field', async () => {
    const s = await t.save({ turns: [{ user: 'x', answer: 'y' }] });
    const idx = await openIndex();
    const before = idx.counts();
    expect(() => idx.upsert({ ...s, message_meta: [] })).toThrow(/message_meta/);
    expect(() => idx.upsert({ ...s, id: '../escape' })).toThrow(/\bid\b/);
    expect(idx.counts()).toEqual(before);
  });

  it('removes a session from the index', async () => {
    const a = await t.save({ turns: [{ user: 'zebra facts', answer: 'stripes' }] });
    const b = await t.save({ agent: 'zoo', turns: [{ user: 'zebra facts', answer: 'stripes' }] });
    const idx = await indexAll();
    expect(idx.remove(a.id, 'default')).toBe(1);
    expect(idx.search('zebra', { agent: 'default' })).toEqual([]);
    expect(ids(idx.search('zebra', { agent: 'zoo' }))).toEqual([b.id]);
    expect(idx.remove(b.id)).toBe(1);
    expect(idx.counts()).toEqual({ sessions: 0, rows: 0 });
  });
});

describe("Rein's own text is not indexed", () => {
  it('"working folder" and "Current local time" match no session; what was said still does', async () => {
    const a = await t.save({ turns: [{ user: 'saffron risotto for four', answer: 'Toast the rice first.' }] });
    const b = await t.save({
      turns: [
        { user: 'plan a glacier hike', answer: 'Start before dawn.' },
        { user: 'and the gear?', answer: 'Crampons.' },
      ],
    });
    const idx = await indexAll();
    for (const q of [
      'working folder',
      'Current local time',
      'context window',
      'cache_break',
      'metric units',
      'Europe/Zurich',
      'claude-sonnet-5-5',
    ]) {
      expect(idx.search(q, { agent: 'default' }), q).toEqual([]);
    }
    expect(ids(idx.search('saffron', { agent: 'default' }))).toEqual([a.id]);
    expect(ids(idx.search('crampons', { agent: 'default' }))).toEqual([b.id]);
    expect(ids(idx.search('gear', { agent: 'default' }))).toEqual([b.id]);
  });

  it('an index built while the block was indexed (an older schema version) is rebuilt when opened', async () => {
    const a = await t.save({ turns: [{ user: 'saffron risotto', answer: 'ok' }] });
    (await openIndex()).dispose();
    // What an older Rein left: the block's words among the rows, under the version it wrote.
    const raw = new Database(indexFile(t.home));
    const { key } = raw.prepare('SELECT key FROM sessions').get() as { key: number };
    raw
      .prepare("INSERT INTO messages (id, msg_index, role, substrings, content) VALUES (?, 0, 'user', 1, ?)")
      .run(key * 2 ** 24 + 1000, 'Current local time: 2026-03-08 10:00 (UTC)\nWorking folder: /Users/me/project');
    raw.close();
    const stale = await openIndex();
    expect(ids(stale.search('working folder', { agent: 'default' }))).toEqual([a.id]);
    stale.dispose();
    const old = new Database(indexFile(t.home));
    old.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    old.close();

    const idx = await openIndex();
    expect(idx.opened.schema).toBe('replaced');
    expect(idx.opened.reindexed?.sessions).toBe(1);
    expect(idx.search('working folder', { agent: 'default' })).toEqual([]);
    expect(idx.search('Current local time', { agent: 'default' })).toEqual([]);
    expect(ids(idx.search('saffron', { agent: 'default' }))).toEqual([a.id]);
  });
});

describe('SessionIndex rebuild', () => {
  it('builds itself from the JSON files of every agent on first open', async () => {
    const a = await t.save({ turns: [{ user: 'lighthouse keeper', answer: 'ok' }] });
    const b = await t.save({ agent: 'writer', source: 'schedule', turns: [{ user: 'lighthouse poem', answer: 'ok' }] });
    const idx = await openIndex();

    expect(idx.opened.schema).toBe('created');
    expect(idx.opened.reindexed).toMatchObject({
      sessions: 2,
      removed: 0,
      problems: [],
      agents: ['default', 'writer'],
    });
    expect(ids(idx.search('lighthouse', { agent: 'default' }))).toEqual([a.id]);
    expect(ids(idx.search('lighthouse', { agent: 'writer' }))).toEqual([b.id]);
  });

  it('loses nothing when rein.db is deleted: reopening rebuilds it, skipping and reporting corrupt files', async () => {
    const a = await t.save({ turns: [{ user: 'orchid watering schedule', answer: 'twice a week' }] });
    const b = await t.save({ agent: 'garden', turns: [{ user: 'orchid repotting', answer: 'in spring' }] });
    const idx = await openIndex();
    const before = { default: idx.list({ agent: 'default' }), garden: idx.list({ agent: 'garden' }) };
    idx.dispose();

    for (const suffix of ['', '-wal', '-shm']) await rm(`${indexFile(t.home)}${suffix}`, { force: true });
    const broken = join(paths.sessionsDir(t.home, 'garden'), '2026-03-08-0123456789ab.json');
    await writeFile(broken, '{ not json');

    const again = await openIndex();
    expect(again.opened.reindexed?.sessions).toBe(2);
    expect(again.opened.reindexed?.problems.map((p) => p.file)).toEqual([broken]);
    expect(isReinError(again.opened.reindexed?.problems[0]?.error, 'session_corrupt')).toBe(true);
    expect({ default: again.list({ agent: 'default' }), garden: again.list({ agent: 'garden' }) }).toEqual(before);
    expect(ids(again.search('orchid', { agent: 'default' }))).toEqual([a.id]);
    expect(ids(again.search('orchid', { agent: 'garden' }))).toEqual([b.id]);
  });

  it('reindex drops sessions whose file is gone and picks up files written without the index', async () => {
    const gone = await t.save({ turns: [{ user: 'temporary note about walnuts', answer: 'ok' }] });
    const idx = await openIndex();
    await t.store().delete(gone.id);
    const later = await t.save({ turns: [{ user: 'walnuts and almonds', answer: 'ok' }] });
    expect(ids(idx.search('walnuts', { agent: 'default' }))).toEqual([gone.id]); // the index is a cache until reindexed

    const report = await idx.reindex();
    expect(report).toMatchObject({ sessions: 1, removed: 1, problems: [] });
    expect(ids(idx.search('walnuts', { agent: 'default' }))).toEqual([later.id]);
  });

  it('moves a corrupt rein.db aside as rein.db.corrupt-<time> and rebuilds it from the JSON files', async () => {
    const s = await t.save({ turns: [{ user: 'volcano documentary', answer: 'ok' }] });
    (await openIndex()).dispose();
    const garbage = Buffer.from('this is not an SQLite database '.repeat(200));
    await writeFile(indexFile(t.home), garbage);

    const idx = await openIndex();
    expect(idx.opened.movedAside).toMatch(/rein\.db\.corrupt-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    expect(existsSync(idx.opened.movedAside!)).toBe(true);
    expect((await readdir(t.home)).filter((n) => n.startsWith('rein.db.corrupt-'))).toHaveLength(1);
    expect(idx.opened.reindexed?.sessions).toBe(1);
    expect(ids(idx.search('volcano', { agent: 'default' }))).toEqual([s.id]);
  });

  it('recovers from a database damaged inside (valid header, broken pages) on reindex', async () => {
    const s = await t.save({ turns: [{ user: 'glacier hike', answer: 'ok' }] });
    for (let i = 0; i < 40; i++)
      await t.save({ turns: [{ user: `filler session ${i} ${'text '.repeat(200)}`, answer: 'ok' }] });
    const first = await openIndex();
    first.dispose();
    // Keep the 100-byte header and the first page, overwrite the rest with garbage.
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(indexFile(t.home));
    expect(bytes.length).toBeGreaterThan(8192);
    bytes.fill(0x5a, 4096);
    await writeFile(indexFile(t.home), bytes);

    const idx = await SessionIndex.open(t.home, { rebuild: 'never' });
    open.push(idx);
    let failed: unknown;
    try {
      idx.search('glacier', { agent: 'default' });
    } catch (e) {
      failed = e;
    }
    if (failed) expect(String(failed)).toMatch(/rein sessions reindex/);
    const report = await idx.reindex();
    expect(report.sessions).toBe(41);
    expect(idx.opened.movedAside).toMatch(/rein\.db\.corrupt-/);
    expect(ids(idx.search('glacier', { agent: 'default' }))).toEqual([s.id]);
  });

  it('rebuilds when the schema version differs', async () => {
    const s = await t.save({ turns: [{ user: 'saffron risotto', answer: 'ok' }] });
    (await openIndex()).dispose();
    const raw = new Database(indexFile(t.home));
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.exec(`DELETE FROM messages`);
    raw.close();

    const idx = await openIndex();
    expect(idx.opened.schema).toBe('replaced');
    expect(idx.opened.reindexed?.sessions).toBe(1);
    expect(ids(idx.search('saffron', { agent: 'default' }))).toEqual([s.id]);
    const check = new Database(indexFile(t.home), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(check.pragma('journal_mode', { simple: true })).toBe('wal');
    check.close();
  });

  it('does not rebuild on a later open, and reads no unchanged file again', async () => {
    await t.save({ turns: [{ user: 'x', answer: 'y' }] });
    (await openIndex()).dispose();
    const idx = await openIndex();
    // The folder check looked at the one file and found it as indexed.
    expect(idx.opened).toEqual({ schema: 'current', checked: { files: 1, indexed: 0, removed: 0, problems: [] } });
  });
});

describe('snippets come from the hit itself', () => {
  it("an agent's hit never shows another agent's text, whatever order the sessions were indexed in", async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SessionStore } = await import('../../../src-main/core/sessions/store.js');
    const { SessionIndex } = await import('../../../src-main/core/search/sessionIndex.js');
    const home = await mkdtemp(join(tmpdir(), 'rein-snip-'));
    const make = async (agent: string, dir: string, q: string, a: string) => {
      const store = new SessionStore(dir);
      const s = store.create({ agent, cwd: '/', source: 'cli' });
      const t = new Date().toISOString();
      s.messages.push(
        { role: 'user', content: [{ type: 'text', text: q }] },
        { role: 'assistant', content: [{ type: 'text', text: a }] },
      );
      s.message_meta.push({ source: 'cli', timestamp: t }, { source: 'cli', timestamp: t });
      await store.save(s);
      return s;
    };
    const first = await make(
      'default',
      join(home, 'sessions'),
      'how are the deploys?',
      'The deployment pipelines are running smoothly.',
    );
    const second = await make(
      'ops',
      join(home, 'agents', 'ops', 'sessions'),
      'when does the pipeline run?',
      'ops secret: the pipeline runs at night',
    );
    const index = await SessionIndex.open(home, { rebuild: 'never' });
    index.upsert(first);
    index.upsert(second);
    const ops = index.search('pipeline', { agent: 'ops' });
    const dflt = index.search('pipeline', { agent: 'default' });
    index.dispose();
    expect(ops).toHaveLength(1);
    expect(ops[0]!.snippet).not.toContain('deployment');
    expect(dflt[0]!.snippet).toContain('deployment');
  });
});
