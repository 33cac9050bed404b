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

function session(
  messages: Array<[role: 'user' | 'assistant', text: string, source?: string]>,
  source = 'desktop',
): SessionFile {
  const store = new SessionStore('/nowhere');
  const s = store.create({ agent: 'ops', cwd: '/tmp', source, title: 'CI "flaky"\nweek' });
  for (const [role, text, src] of messages) {
    s.messages.push({ role, content: [{ type: 'text', text }] });
    s.message_meta.push({ source: src ?? source, timestamp: new Date().toISOString() });
  }
  return s;
}

describe('HEARTBEAT_OK', () => {
  // Silent: the token first, with markdown, punctuation or a short remark that tells nothing.
  it.each([
    'HEARTBEAT_OK',
    '  heartbeat_ok\n',
    'Heartbeat_Ok',
    '\tHEARTBEAT_OK  ',
    'HEARTBEAT_OK.',
    'HEARTBEAT_OK!',
    '**HEARTBEAT_OK**',
    '`HEARTBEAT_OK`',
    '_HEARTBEAT_OK_',
    '*HEARTBEAT_OK*.',
    '~~HEARTBEAT_OK~~',
    '> HEARTBEAT_OK',
    '# HEARTBEAT_OK',
    '<b>HEARTBEAT_OK</b>',
    'HEARTBEAT_OK - nothing new',
    'HEARTBEAT_OK: all quiet',
    'HEARTBEAT_OK — no action needed.',
    'HEARTBEAT_OK (nothing to report)',
    'HEARTBEAT_OK, all goals checked',
    'HEARTBEAT_OK - no alerts',
    'HEARTBEAT_OK – nothing needs attention',
    '**HEARTBEAT_OK** — all quiet.',
    'HEARTBEAT_OK\n\nAll clear.',
  ])('%j is silent', (answer) => expect(isHeartbeatOk(answer)).toBe(true));

  // Alerts: the token elsewhere, a finding, a figure, a question, a contrast, a longer message.
  it.each([
    '',
    'HEARTBEAT OK',
    'HEARTBEAT_OKAY',
    'HEARTBEAT_OK_NOW',
    'All fine: HEARTBEAT_OK',
    'Nothing needs attention. HEARTBEAT_OK',
    'The CI is red. HEARTBEAT_OK',
    'HEARTBEAT_OK but the disk is 95% full',
    'HEARTBEAT_OK — but CI failed',
    'HEARTBEAT_OK: disk at 91%',
    'HEARTBEAT_OK - the cert expires Friday',
    'HEARTBEAT_OK. Should I rerun the job?',
    'HEARTBEAT_OK - anything else?',
    'HEARTBEAT_OK\n\nCI on main failed: job e2e',
    'HEARTBEAT_OK - mostly quiet, though staging is slow',
    'HEARTBEAT_OK - only staging is behind',
    'HEARTBEAT_OK, no news but the backup is stuck',
    "HEARTBEAT_OK - didn't check CI",
    'HEARTBEAT_OK - not sure about the deploy',
    'HEARTBEAT_OK - see https://ci.example.com',
    'HEARTBEAT_OK - please look at the incident',
    'HEARTBEAT_OK — everything is fine apart from the staging deploy',
    'HEARTBEAT_OK — everything is fine, the release notes are drafted and sent out',
  ])('%j alerts', (answer) => expect(isHeartbeatOk(answer)).toBe(false));
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
      s.messages.push({
        role: 'user',
        content: [
          { type: 'text', text: '<!-- cache_break -->\n<context>\nCurrent local time: x\n</context>' },
          { type: 'text', text: `question ${i} ${'q'.repeat(900)}` },
        ],
      });
      s.message_meta.push({ source: 'desktop', timestamp: new Date().toISOString() });
      s.messages.push({
        role: 'assistant',
        content: [
          { type: 'text', text: `answer ${i}` },
          { type: 'tool_use', id: `t${i}`, name: 'bash', input: {} },
        ],
      });
      s.message_meta.push({ source: 'desktop', timestamp: new Date().toISOString() });
      s.messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'SECRET OUTPUT' }],
      });
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
