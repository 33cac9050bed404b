// The chat's conversation list (newest first, a search narrowing it, one row per session), the
// conversation a reload comes back to (kept in localStorage, never trusted as stored), and the
// sidebar's shape at each width.
import { describe, expect, it } from 'vitest';
import type { SearchHit, SessionRecord, SessionSummary } from '../../../src-main/core/api/index.js';
import { chatReducer, emptyChat } from '../../../src-renderer/src/state/chat.js';
import {
  conversationRows,
  readRemembered,
  remember,
  REMEMBERED_KEY,
} from '../../../src-renderer/src/state/conversations.js';
import {
  initialSidebar,
  sidebarCollapsed,
  sidebarOverlays,
  sidebarReducer,
  type SidebarAction,
  type SidebarState,
} from '../../../src-renderer/src/state/layout.js';

const summary = (id: string, updated_at: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({
  id,
  agent: 'default',
  title: `title of ${id}`,
  source: 'chat',
  created_at: updated_at,
  updated_at,
  message_count: 2,
  ...extra,
});
const hit = (session_id: string, snippet: string, updated_at?: string): SearchHit => ({
  session_id,
  agent: 'default',
  source: 'chat',
  title: `title of ${session_id}`,
  snippet,
  ...(updated_at ? { updated_at } : {}),
});

const A = '2026-01-01-aaaaaaaaaaaa';
const B = '2026-01-02-bbbbbbbbbbbb';
const C = '2026-01-03-cccccccccccc';

describe('conversation rows', () => {
  const sessions = [
    summary(A, '2026-01-01T10:00:00Z'),
    summary(C, '2026-01-03T10:00:00Z'),
    summary(B, '2026-01-02T10:00:00Z'),
  ];

  it('lists the sessions newest first, leaving out damaged files', () => {
    const rows = conversationRows([
      ...sessions,
      summary('2026-01-04-dddddddddddd', '2026-01-04T10:00:00Z', { damaged: true, problem: 'not JSON' }),
    ]);
    expect(rows.map((r) => r.id)).toEqual([C, B, A]);
    expect(rows[0]).toEqual({
      id: C,
      title: `title of ${C}`,
      updated_at: '2026-01-03T10:00:00Z',
      source: 'chat',
      message_count: 2,
    });
  });

  it('narrows to what a search found: one row per session with its first snippet, still newest first', () => {
    const rows = conversationRows(sessions, [
      hit(A, 'best >>>alpha<<< match', '2026-01-01T10:00:00Z'),
      hit(B, '>>>alpha<<< in B', '2026-01-02T10:00:00Z'),
      hit(A, 'another >>>alpha<<<'),
    ]);
    expect(rows.map((r) => [r.id, r.snippet])).toEqual([
      [B, '>>>alpha<<< in B'],
      [A, 'best >>>alpha<<< match'],
    ]);
  });

  it('takes a hit’s missing time and title from the listing, and keeps hits of sessions it does not list', () => {
    const older = '2025-12-30-eeeeeeeeeeee';
    const rows = conversationRows(sessions, [{ ...hit(C, 'x'), title: '' }, hit(older, 'y')]);
    expect(rows.map((r) => [r.id, r.title, r.updated_at])).toEqual([
      [C, `title of ${C}`, '2026-01-03T10:00:00Z'],
      [older, `title of ${older}`, ''],
    ]);
  });

  it('leaves out a search hit of a damaged file, and shows nothing for a search that found nothing', () => {
    expect(conversationRows([summary(A, '2026-01-01T10:00:00Z', { damaged: true })], [hit(A, 'x')])).toEqual([]);
    expect(conversationRows(sessions, [])).toEqual([]);
  });
});

/** An in-memory Storage with the calls the page makes. */
function memoryStore(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
  };
}

describe('the conversation a reload comes back to', () => {
  it('keeps one session id per agent, and forgets it on "New chat"', () => {
    const store = memoryStore();
    remember(store, 'default', A);
    remember(store, 'ops', B);
    expect(readRemembered(store)).toEqual({ default: A, ops: B });
    remember(store, 'default', C);
    expect(JSON.parse(store.data.get(REMEMBERED_KEY)!)).toEqual({ default: C, ops: B });
    remember(store, 'default', undefined);
    remember(store, 'ops', undefined);
    expect(store.data.has(REMEMBERED_KEY)).toBe(false);
    expect(readRemembered(store)).toEqual({});
  });

  it('ignores what is not a map of agent names to session ids', () => {
    for (const raw of ['not json', '[]', '"x"', 'null', '42'])
      expect(readRemembered(memoryStore({ [REMEMBERED_KEY]: raw }))).toEqual({});
    const mixed = JSON.stringify({ default: A, ops: '../../etc/passwd', 'Bad Name': B, writer: 7, good: C });
    expect(readRemembered(memoryStore({ [REMEMBERED_KEY]: mixed }))).toEqual({ default: A, good: C });
  });

  it('carries on without storage, or with storage that refuses', () => {
    expect(readRemembered(undefined)).toEqual({});
    expect(() => remember(undefined, 'default', A)).not.toThrow();
    const refusing = {
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => undefined,
    };
    expect(() => remember(refusing, 'default', A)).not.toThrow();
    const locked = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => undefined,
      removeItem: () => undefined,
    };
    expect(readRemembered(locked)).toEqual({});
  });
});

describe('restoring a conversation into the chat', () => {
  const session: SessionRecord = {
    id: A,
    agent: 'default',
    title: 'What notes do I have?',
    source: 'chat',
    created_at: '2026-01-01T10:00:00Z',
    updated_at: '2026-01-01T10:00:00Z',
    messages: [
      { role: 'user', content: 'What notes do I have?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'touch approved.txt' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Two notes.' }] },
    ],
  };
  const fresh = () => emptyChat('default', 'chat:desktop');

  it('shows the saved conversation in an empty chat, its tool calls as the live cards show them', () => {
    const s = chatReducer(fresh(), { type: 'restore_session', session });
    expect(s.session_id).toBe(A);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'tool', 'assistant']);
    expect(s.items[1]).toMatchObject({
      kind: 'tool',
      tool: 'bash',
      summary: '$ touch approved.txt',
      preview: 'done',
      status: 'ok',
    });
  });

  it('leaves a chat alone that someone already typed into or that shows another conversation', () => {
    const typed = chatReducer(fresh(), { type: 'sending', text: 'hello' });
    expect(chatReducer(typed, { type: 'restore_session', session })).toBe(typed);
    const other = chatReducer(fresh(), { type: 'load_session', session: { ...session, id: B } });
    expect(chatReducer(other, { type: 'restore_session', session })).toBe(other);
  });
});

describe('the sidebar', () => {
  const run = (s: SidebarState, ...actions: SidebarAction[]) => actions.reduce(sidebarReducer, s);

  it('shows icons only in a narrow window; its toggle expands it over the content; going somewhere folds it back', () => {
    const narrow = initialSidebar(true);
    expect(sidebarCollapsed(narrow)).toBe(true);
    const open = run(narrow, { type: 'toggle' });
    expect([sidebarCollapsed(open), sidebarOverlays(open)]).toEqual([false, true]);
    expect(sidebarCollapsed(run(open, { type: 'navigated' }))).toBe(true);
    expect(sidebarCollapsed(run(open, { type: 'dismiss' }))).toBe(true);
  });

  it('shows names in a wide window, folds to icons on the toggle, and stays as chosen when a view is picked', () => {
    const wide = initialSidebar(false);
    expect([sidebarCollapsed(wide), sidebarOverlays(wide)]).toEqual([false, false]);
    const folded = run(wide, { type: 'toggle' });
    expect(sidebarCollapsed(folded)).toBe(true);
    expect(sidebarCollapsed(run(folded, { type: 'navigated' }))).toBe(true);
    expect(sidebarCollapsed(run(folded, { type: 'toggle' }))).toBe(false);
  });

  it('starts over from what suits the width when the window crosses it', () => {
    const folded = run(initialSidebar(false), { type: 'toggle' });
    expect(run(folded, { type: 'width', narrow: false })).toBe(folded);
    const narrow = run(folded, { type: 'width', narrow: true });
    expect(narrow).toEqual(initialSidebar(true));
    expect(sidebarCollapsed(run(narrow, { type: 'toggle' }, { type: 'width', narrow: false }))).toBe(false);
  });
});
