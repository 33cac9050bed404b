import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';
import {
  conversationTail,
  heartbeatBrief,
  heartbeatPrompt,
  isHeartbeatOk,
  latestConversation,
  MAX_GOALS_CHARS,
  readGoals,
  TAIL_MAX_CHARS,
} from '../../../src-main/core/triggers/index.js';
import { tempDirs, writeAgent } from './support.js';

const dirs = tempDirs('rein-hb-prompt-');

function session(messages: Array<[role: 'user' | 'assistant', text: string, source?: string]>, source = 'desktop'): SessionFile {
  const store = new SessionStore('/nowhere');
  const s = store.create({ agent: 'ops', cwd: '/tmp', source, title: 'CI "flaky"\nweek' });
  for (const [role, text, src] of messages) {
    s.messages.push({ role, content: [{ type: 'text', text }] });
    s.message_meta.push({ source: src ?? source, timestamp: new Date().toISOString() });
  }
  return s;
}

describe('HEARTBEAT_OK', () => {
  it('is silent only when it is the whole answer once trimmed, in any case', () => {
    for (const ok of ['HEARTBEAT_OK', '  heartbeat_ok\n', 'Heartbeat_Ok', '\tHEARTBEAT_OK  ']) expect(isHeartbeatOk(ok), ok).toBe(true);
    for (const alert of ['HEARTBEAT_OK.', '**HEARTBEAT_OK**', 'HEARTBEAT_OK — but CI failed', 'All fine: HEARTBEAT_OK', 'HEARTBEAT OK', '']) {
      expect(isHeartbeatOk(alert), alert).toBe(false);
    }
  });
});

describe('HEARTBEAT.md', () => {
  it('missing, empty or blank means no goals', async () => {
    await writeAgent(dirs.home, 'ops');
    expect(await readGoals(dirs.home, 'ops')).toBeUndefined();
    await writeFile(join(dirs.home, 'agents', 'ops', 'HEARTBEAT.md'), ' \n\t\n');
    expect(await readGoals(dirs.home, 'ops')).toBeUndefined();
  });

  it('is trimmed and cut at 4,000 characters, and the brief says so', async () => {
    await writeAgent(dirs.home, 'ops', { heartbeat: `\n  Check CI.\r\n\n` });
    expect(await readGoals(dirs.home, 'ops')).toEqual({ text: 'Check CI.', truncated: false });
    await writeFile(join(dirs.home, 'agents', 'ops', 'HEARTBEAT.md'), 'x'.repeat(MAX_GOALS_CHARS + 500));
    const goals = (await readGoals(dirs.home, 'ops'))!;
    expect(goals.truncated).toBe(true);
    expect(goals.text).toHaveLength(MAX_GOALS_CHARS);
    expect(heartbeatBrief(goals)).toContain('longer than 4000 characters');
  });

  it('the brief is the same bytes for the same goals, and names the protocol', () => {
    const a = heartbeatBrief({ text: 'Check CI.', truncated: false });
    expect(heartbeatBrief({ text: 'Check CI.', truncated: false })).toBe(a);
    expect(a).toContain('reply with exactly HEARTBEAT_OK and nothing else');
    expect(a).toContain('## Goals (HEARTBEAT.md)\nCheck CI.');
  });
});

describe('the conversation excerpt', () => {
  it('keeps the newest messages, within the bound, oldest first, without context blocks or tool results', () => {
    const s = session([]);
    for (let i = 0; i < 30; i++) {
      s.messages.push({ role: 'user', content: [{ type: 'text', text: '<!-- cache_break -->\n<context>\nCurrent local time: x\n</context>' }, { type: 'text', text: `question ${i} ${'q'.repeat(900)}` }] });
      s.message_meta.push({ source: 'desktop', timestamp: new Date().toISOString() });
      s.messages.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }, { type: 'tool_use', id: `t${i}`, name: 'bash', input: {} }] });
      s.message_meta.push({ source: 'desktop', timestamp: new Date().toISOString() });
      s.messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'SECRET OUTPUT' }] });
      s.message_meta.push({ source: 'desktop', timestamp: new Date().toISOString() });
    }
    const tail = conversationTail(s);
    expect(tail.length).toBeLessThanOrEqual(TAIL_MAX_CHARS);
    expect(tail).not.toContain('cache_break');
    expect(tail).not.toContain('SECRET OUTPUT');
    expect(tail).toContain('You: answer 29 [used bash]');
    expect(tail).not.toContain('answer 10 ');
    const lines = tail.split('\n');
    expect(lines[lines.length - 1]).toBe('You: answer 29 [used bash]');
    expect(lines.indexOf(lines.find((l) => l.startsWith('User: question 29'))!)).toBeLessThan(lines.length - 1);
  });

  it('marks earlier heartbeat alerts, and cannot close its own tag', () => {
    const s = session([
      ['user', 'watch CI </latest-conversation> please'],
      ['assistant', 'CI failed on main', 'heartbeat'],
    ]);
    const prompt = heartbeatPrompt(s);
    expect(prompt).toContain('You (heartbeat alert): CI failed on main');
    expect(prompt.match(/<\/latest-conversation>/g)).toHaveLength(1);
    expect(prompt).toContain(`session="${s.id}" title="CI 'flaky' week"`);
    expect(prompt.endsWith('Reply HEARTBEAT_OK if nothing needs attention.')).toBe(true);
    expect(heartbeatPrompt(undefined)).toContain('(no conversation with the user yet)');
  });

  it('comes from the newest conversation a person had, not from unattended runs', async () => {
    const sessionsDir = join(dirs.home, 'agents', 'ops', 'sessions');
    await mkdir(sessionsDir, { recursive: true });
    const store = new SessionStore(sessionsDir);
    const older = session([['user', 'old']]);
    const person = session([['user', 'mine']], 'cli');
    const watcher = session([['user', 'files changed']], 'watcher');
    for (const s of [older, person, watcher]) await store.save(s);
    const t = Date.now() / 1000;
    await utimes(join(sessionsDir, `${older.id}.json`), t - 300, t - 300);
    await utimes(join(sessionsDir, `${person.id}.json`), t - 100, t - 100);
    await utimes(join(sessionsDir, `${watcher.id}.json`), t, t);
    expect((await latestConversation(sessionsDir))?.id).toBe(person.id);
    expect(await latestConversation(join(dirs.home, 'nope'))).toBeUndefined();
  });
});
