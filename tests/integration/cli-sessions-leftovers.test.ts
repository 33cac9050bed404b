/**
 * Interrupted saves through the real CLI: a temp file that a killed writer left with a newer, complete
 * version of a session is recovered — by `rein sessions list`, or by the `rein run --session` that
 * continues the session — and said once on stderr; a cut-short one is kept in leftovers/.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, rein } from '../support/cli.js';

const LOCK_CHILD = resolve(__dirname, '../fixtures/sessions/sessionLockChild.ts');

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
});
afterEach(async () => {
  await fake.close();
});

const sessionsDir = () => join(home, 'sessions');

async function seeded(): Promise<{ id: string; file: string; saved: Record<string, any> }> {
  fake.enqueue(text('first answer'));
  const r = await rein(['run', 'first question'], { env, cwd });
  expect(r.code, r.stderr).toBe(0);
  const id = readdirSync(sessionsDir())
    .find((n) => n.endsWith('.json'))!
    .slice(0, -5);
  const file = join(sessionsDir(), `${id}.json`);
  return { id, file, saved: JSON.parse(readFileSync(file, 'utf8')) };
}

/** A pid that has ended: a process spawned, exited and reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('close', r));
  return child.pid!;
}

/** What a writer killed between its fsync and its rename leaves: the next version, complete, in a temp file. */
async function plantNewer(id: string, saved: Record<string, any>): Promise<string> {
  const next = structuredClone(saved);
  const at = new Date(Date.parse(saved.updated_at) + 60_000).toISOString();
  next.messages.push(
    { role: 'user', content: 'the interrupted question' },
    { role: 'assistant', content: [{ type: 'text', text: 'the interrupted answer' }] },
  );
  next.message_meta.push({ source: 'cli', timestamp: at }, { source: 'cli', timestamp: at });
  next.updated_at = at;
  const temp = join(sessionsDir(), `.${id}.json.${await deadPid()}.3.tmp`);
  await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  return temp;
}

describe('interrupted saves through the CLI', () => {
  it('rein sessions list recovers a newer complete version, says so once, and keeps the file it replaced', async () => {
    const { id, file, saved } = await seeded();
    const temp = await plantNewer(id, saved);

    const r = await rein(['sessions', 'list', '--json'], { env, cwd });

    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `^rein: recovered session ${id} from an interrupted save; the version it replaced is kept as ${sessionsDir()}/leftovers/${id}\\.json\\.replaced-\\S+$`,
        'm',
      ),
    );
    expect(existsSync(temp)).toBe(false);
    expect(readFileSync(file, 'utf8')).toContain('the interrupted answer');
    const kept = readdirSync(join(sessionsDir(), 'leftovers'));
    expect(kept).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(sessionsDir(), 'leftovers', kept[0]!), 'utf8'))).toEqual(saved);

    const again = await rein(['sessions', 'list'], { env, cwd });
    expect(again.stderr).not.toContain('recovered');
  });

  it('rein sessions list keeps a cut-short temp file in leftovers/ and says so', async () => {
    const { id, file } = await seeded();
    const before = readFileSync(file, 'utf8');
    const name = `.${id}.json.${await deadPid()}.0.tmp`;
    await writeFile(join(sessionsDir(), name), before.slice(0, 40));

    const r = await rein(['sessions', 'list'], { env, cwd });

    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `rein: kept an incomplete copy of session ${id} from an interrupted save as ${join(sessionsDir(), 'leftovers', name.slice(1))}`,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(sessionsDir()).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('rein run --session after a writer was killed mid-save continues from the recovered version at once', async () => {
    const { id, saved } = await seeded();
    // The killed writer held the session's lock: it is left behind, with a pid that is gone.
    const holder = spawn(process.execPath, ['--import', 'tsx', LOCK_CHILD, sessionsDir(), id, 'hold'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    await new Promise<void>((ok) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && ok()));
    holder.kill('SIGKILL');
    await new Promise((r) => holder.on('close', r));
    expect(existsSync(join(sessionsDir(), `${id}.json.lock`))).toBe(true);
    await plantNewer(id, saved);

    fake.enqueue(text('second answer'));
    const r = await rein(['run', '--session', id, 'second question'], {
      env: { ...env, REIN_SESSION_WAIT_MS: '0' },
      cwd,
    });

    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`rein: recovered session ${id} from an interrupted save`);
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain('the interrupted answer');
    const final = JSON.parse(readFileSync(join(sessionsDir(), `${id}.json`), 'utf8'));
    expect(final.messages).toHaveLength(6);
  });
});
