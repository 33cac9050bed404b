/**
 * A long session continued from the command line (issue 26, item 7): a file past the size the store
 * reads a message at a time, continued by `rein run --session` with a tool call, keeps every message it
 * had, in the same format, gains the new turn, and is found by search. What the model is sent is the
 * housekept history, not the transcript. (Its memory is measured by `npm run bench -- sessions`.)
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src-main/core/sessions/store.js';
import { SessionFile } from '../../src-main/core/sessions/types.js';
import { text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, rein } from '../support/cli.js';

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
  await mkdir(cwd, { recursive: true });
});
afterEach(async () => {
  await fake.close();
});

/** 60 tool results of 50 KB (some characters outside Latin-1): a 3 MB file. */
async function longSession(): Promise<{ id: string; file: string; before: SessionFile }> {
  const store = new SessionStore(join(home, 'sessions'));
  const s = store.create({ agent: 'default', cwd, source: 'cli', title: 'Refactor the storage layer' });
  const add = (m: SessionFile['messages'][number]) => {
    s.messages.push(m);
    s.message_meta.push({ source: 'cli', timestamp: new Date().toISOString() });
  };
  add({ role: 'user', content: [{ type: 'text', text: 'refactor the storage layer' }] });
  for (let i = 0; i < 60; i++) {
    add({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_old_${i}`, name: 'file_read', input: { path: `src/f${i}.ts` } }],
    });
    add({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `toolu_old_${i}`,
          content: `${i}\tconst store = "x"; // ✓ tested\n`.repeat(1_400),
        },
      ],
    });
  }
  add({ role: 'assistant', content: [{ type: 'text', text: 'The storage layer is refactored.' }] });
  await store.save(s);
  const file = join(home, 'sessions', `${s.id}.json`);
  return { id: s.id, file, before: JSON.parse(await readFile(file, 'utf8')) as SessionFile };
}

describe('rein run --session on a long session', () => {
  it('continues it: every message kept, the new turn added, the format unchanged, the request housekept', async () => {
    const { id, file, before } = await longSession();
    expect((await readFile(file)).byteLength).toBeGreaterThan(3 * 1024 * 1024);
    await writeFile(join(cwd, 'notes.md'), '# Notes\n\nthe lock helper is in util/fileLock.ts\n');
    fake.enqueue(
      tools([toolCall('file_read', { path: 'notes.md' })], 'Reading the notes.'),
      text('The notes say where the lock helper is.'),
    );

    const r = await rein(['run', '--session', id, 'where is the lock helper?'], { env, cwd });
    expect(r.stderr).not.toMatch(/rein: (?!warning)/);
    expect(r.code).toBe(0);

    const textAfter = await readFile(file, 'utf8');
    const after = JSON.parse(textAfter) as SessionFile;
    expect(textAfter).toBe(`${JSON.stringify(SessionFile.parse(after), null, 2)}\n`);
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect(after.message_meta.slice(0, before.message_meta.length)).toEqual(before.message_meta);
    const added = after.messages.slice(before.messages.length);
    expect(added.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(added)).toContain('where is the lock helper?');
    expect(JSON.stringify(added.at(-1))).toContain('The notes say where the lock helper is.');

    // The model was sent the old results as one-line records, not the 3 MB of them.
    expect(fake.requests).toHaveLength(2);
    for (const req of fake.requests) expect(req.raw.length).toBeLessThan(400_000);
    expect(fake.requests[0]!.raw).toContain('output removed to save context');

    const found = JSON.parse(
      (await rein(['sessions', 'search', '--json', 'lock helper'], { env, cwd })).stdout,
    ) as Array<{ session_id?: string; sessionId?: string }>;
    expect(found).toHaveLength(1);
  });
});
