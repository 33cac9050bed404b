import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { indexFile } from '../../../src-main/core/search/sessionIndex.js';
import { parseLenient } from '../../../src-main/core/tools/lenient.js';
import { SessionReadTracker } from '../../../src-main/core/tools/readTracker.js';
import { NO_SESSIONS_FOUND, sessionSearchTool } from '../../../src-main/core/tools/builtin/sessionSearch.js';
import type { ToolContext, ToolResult } from '../../../src-main/core/tools/tool.js';
import { makeTempHome, type TempHome } from './sessionFixtures.js';

let t: TempHome;

function ctxFor(agent: string, sessionId = '2026-03-08-ffffffffffff'): ToolContext {
  return {
    cwd: t.home,
    sessionId,
    sessionDir: `${t.home}/side`,
    reinHome: t.home,
    agent,
    readTracker: new SessionReadTracker(),
    egress: async () => ({ allowed: true }),
  };
}

/** Parses the raw input leniently with the tool's schema, as the harness does, then calls it. */
async function call(raw: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = parseLenient(sessionSearchTool.input, raw);
  if (!parsed.ok) throw new Error(parsed.error);
  return sessionSearchTool.call(parsed.value, ctx, new AbortController().signal);
}

beforeEach(async () => {
  t = await makeTempHome();
});
afterEach(async () => {
  await t.cleanup();
});

describe('session_search tool', () => {
  it("finds the current agent's sessions and shows title, date, source, session id and a marked snippet", async () => {
    const s = await t.save({
      agent: 'research',
      source: 'schedule',
      turns: [{ user: 'Collect papers about protein folding', answer: 'Found 12 papers.' }],
    });
    const r = await call({ query: 'protein folding' }, ctxFor('research'));

    expect(r.ok).toBe(true);
    expect(r.content).toContain('1 session matching "protein folding"');
    expect(r.content).toContain('1. Collect papers about protein folding');
    expect(r.content).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} · schedule · session /);
    expect(r.content).toContain(`session ${s.id}`);
    expect(r.content).toContain('user: Collect papers about >>>protein<<< >>>folding<<<');
  });

  it("never shows another agent's sessions", async () => {
    await t.save({ agent: 'research', turns: [{ user: 'the launch codes are in the blue folder', answer: 'ok' }] });
    await t.save({ turns: [{ user: 'the launch party is on friday', answer: 'ok' }] });

    const other = await call({ query: 'launch codes' }, ctxFor('ops'));
    expect(other).toEqual({ ok: true, content: NO_SESSIONS_FOUND });
    const dflt = await call({ query: 'launch' }, ctxFor('default'));
    expect(dflt.content).toContain('party');
    expect(dflt.content).not.toContain('codes');
  });

  it('leaves out the session it runs in', async () => {
    const current = await t.save({ turns: [{ user: 'search my sessions for marmalade', answer: 'Searching.' }] });
    const older = await t.save({ turns: [{ user: 'recipe for orange marmalade', answer: 'Boil oranges.' }] });
    const r = await call({ query: 'marmalade' }, ctxFor('default', current.id));
    expect(r.content).toContain(older.id);
    expect(r.content).not.toContain(current.id);
  });

  it('filters by source and caps the limit at 100 with a note', async () => {
    for (let i = 0; i < 3; i++)
      await t.save({
        source: 'heartbeat',
        turns: [{ user: `heartbeat check ${i}: disk usage`, answer: 'HEARTBEAT_OK' }],
      });
    await t.save({ source: 'cli', turns: [{ user: 'how is the disk usage?', answer: 'fine' }] });

    const beats = await call({ query: 'disk usage', source: 'heartbeat' }, ctxFor('default'));
    expect(beats.content).toContain('3 sessions matching');
    expect(beats.content).not.toMatch(/· cli ·/);
    const one = await call({ query: 'disk usage', limit: 1 }, ctxFor('default'));
    expect(one.content).toContain('1 session matching');
    const capped = await call({ query: 'disk usage', limit: '500' }, ctxFor('default'));
    expect(capped.content).toMatch(/^\(limit 500 is above the maximum; used 100\)/);
    expect(capped.content).toContain('4 sessions matching');
  });

  it('reports no matches plainly and accepts tricky text', async () => {
    await t.save({ turns: [{ user: 'hello', answer: 'hi' }] });
    for (const query of ['nothing like this', 'C++ AND "', 'NEAR(', '%_%']) {
      expect(await call({ query }, ctxFor('default'))).toEqual({ ok: true, content: NO_SESSIONS_FOUND });
    }
  });

  it('rejects an empty query and unknown fields', () => {
    expect(sessionSearchTool.input.safeParse({ query: '   ' }).success).toBe(false);
    expect(sessionSearchTool.input.safeParse({ query: 'x', agent: 'ops' }).success).toBe(false);
    expect(sessionSearchTool.input.safeParse({ query: 'x', limit: 0 }).success).toBe(false);
  });

  it('is read-only and safe to run beside other reads', () => {
    const input = sessionSearchTool.input.parse({ query: 'x' });
    expect(sessionSearchTool.isReadOnly(input)).toBe(true);
    expect(sessionSearchTool.isDestructive(input)).toBe(false);
    expect(sessionSearchTool.isConcurrencySafe?.(input)).toBe(true);
  });

  it('works when rein.db is garbage: the index is rebuilt from the session files', async () => {
    await t.save({ turns: [{ user: 'the tortoise and the hare', answer: 'slow and steady' }] });
    await writeFile(indexFile(t.home), 'garbage'.repeat(1000));
    const r = await call({ query: 'tortoise' }, ctxFor('default'));
    expect(r.ok).toBe(true);
    expect(r.content).toContain('the tortoise and the hare');
  });
});
