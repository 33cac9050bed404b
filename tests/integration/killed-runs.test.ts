/**
 * Runs killed with SIGKILL at any moment lose neither search nor audit: every session on disk is found
 * by the next `rein sessions search` (a run notes its session at its first save; the index checks the
 * session folders when it opens), and every tool call a saved session holds has its line in the audit
 * log (a call's line is written before the save that records its result). Real `rein` processes against
 * the scripted fake model, with bash `true` calls in bypassPermissions under a temp HOME and REIN_HOME.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, rein, startRein, tempHome, type CliResult } from '../support/cli.js';
import {
  startFakeAnthropic,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
  type FakeReply,
  type RecordedRequest,
} from '../support/fakeAnthropic.js';
import { acquireOwnedLock } from '../../src-main/core/util/ownedLock.js';

let fake: FakeAnthropic | undefined;
const children: ReturnType<typeof startRein>[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await c.done;
  }
  await fake?.close();
  fake = undefined;
});

async function world() {
  fake = await startFakeAnthropic();
  const { home, cwd } = await tempHome();
  const userHome = join(cwd, 'user-home');
  await mkdir(userHome, { recursive: true });
  const env = cleanEnv({
    HOME: userHome,
    REIN_HOME: home,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'test-key',
  });
  const start = (args: string[]) => {
    const c = startRein(args, { env, cwd });
    children.push(c);
    return c;
  };
  return { fake, home, cwd, env, start };
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

const sessionIds = (home: string): string[] =>
  existsSync(join(home, 'sessions'))
    ? readdirSync(join(home, 'sessions'))
        .filter((n) => /^\d{4}-\d{2}-\d{2}-[0-9a-f]{12}\.json$/.test(n))
        .map((n) => n.slice(0, -5))
        .sort()
    : [];

async function searchIds(env: NodeJS.ProcessEnv, cwd: string, query: string): Promise<string[]> {
  const r: CliResult = await rein(['sessions', 'search', '--json', '--limit', '1000', query], { env, cwd });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ session_id: string }>).map((h) => h.session_id).sort();
}

interface AuditLine {
  session: string;
  tool: string;
  args: string;
}

function auditLines(home: string): AuditLine[] {
  const file = join(home, 'logs', 'audit.jsonl');
  if (!existsSync(file)) return [];
  const out: AuditLine[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as AuditLine);
    } catch {
      // A line cut short by a kill: skipped, as readers do (docs/hooks.md).
    }
  }
  return out;
}

/** Every tool call in the saved sessions, as `<session> <tool> <args as the audit log summarises them>`. */
function savedCalls(home: string): string[] {
  const calls: string[] = [];
  for (const id of sessionIds(home)) {
    const s = JSON.parse(readFileSync(join(home, 'sessions', `${id}.json`), 'utf8')) as {
      messages: Array<{ content: unknown }>;
    };
    for (const m of s.messages) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content as Array<{ type: string; name?: string; input?: unknown }>) {
        if (b.type === 'tool_use') calls.push(`${id} ${b.name} ${JSON.stringify(b.input)}`);
      }
    }
  }
  return calls.sort();
}

/** A run of TOOL_STEPS steps, each one bash `true` call with arguments of its own, then an answer. */
const TOOL_STEPS = 6;
function toolRun(req: RecordedRequest): FakeReply {
  const step = (req.body.messages.length - 1) / 2;
  const prompt = JSON.stringify(req.body.messages[0]?.content ?? '');
  const tag = /kiwi\d+/.exec(prompt)?.[0] ?? 'warmup';
  if (step >= TOOL_STEPS) return text(`Done with ${tag}.`, { chunkDelayMs: 1 });
  return {
    ...tools([toolCall('bash', { command: `true ${tag}-${step}` })], `Step ${step}.`),
    chunkDelayMs: 1,
  } as FakeReply;
}

describe('killed runs', () => {
  it('a rein run killed while the model stalls, after its first save, is found by the next search', async () => {
    const w = await world();
    // The index exists already: the run must reach it by its note (or the folder check), not by a first build.
    expect(await searchIds(w.env, w.cwd, 'anything')).toEqual([]);
    expect(existsSync(join(w.home, 'rein.db'))).toBe(true);
    w.fake.enqueue({ kind: 'stall' });
    const run = w.start(['run', 'chart the zeppelin voyage over the alps']);
    await until(() => w.fake.requests.length >= 1 && sessionIds(w.home).length === 1);
    run.child.kill('SIGKILL');
    await run.done;

    const [id] = sessionIds(w.home);
    // Noted at its first save, not only at the end it never reached.
    expect(readFileSync(join(w.home, 'rein.db.pending'), 'utf8')).toContain(id);
    expect(await searchIds(w.env, w.cwd, 'zeppelin')).toEqual([id]);
  }, 60_000);

  it('20 runs with tool calls killed at random moments: every session on disk is found, every saved call has its audit line', async () => {
    const w = await world();
    w.fake.fallback = toolRun;
    // One whole run first: how long a run takes here, so the kills fall all through one.
    const t0 = Date.now();
    const warm = await rein(['run', '--mode', 'bypassPermissions', 'marmalade warmup'], { env: w.env, cwd: w.cwd });
    expect(warm.code, warm.stderr).toBe(0);
    const runMs = Date.now() - t0;

    // A slow, live holder of the audit log's lock (this process) now and then: a run's audit lines wait
    // for it, and a run that saved a call's result before its line was written would lose the line here.
    let hogging = true;
    const hog = (async () => {
      while (hogging) {
        const lock = await acquireOwnedLock(join(w.home, 'logs', 'audit.jsonl.lock'), { holder: 'the test' });
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 150));
        await lock.release();
        await new Promise((r) => setTimeout(r, Math.random() * 40));
      }
    })();

    let reached = 0;
    for (let i = 0; i < 20; i++) {
      const before = w.fake.requests.length;
      const run = w.start(['run', '--mode', 'bypassPermissions', `marmalade kiwi${i}`]);
      // From its first model request on (its session saved once), at a random moment of the run. (A run
      // that could not start — another test run rebuilding the CLI — is not counted.)
      await until(() => w.fake!.requests.length > before || run.child.exitCode !== null);
      await new Promise((r) => setTimeout(r, Math.random() * runMs));
      if (w.fake.requests.length > before) reached++;
      run.child.kill('SIGKILL');
      await run.done;
    }
    hogging = false;
    await hog;

    const onDisk = sessionIds(w.home);
    expect(reached).toBeGreaterThan(10);
    expect(onDisk).toHaveLength(1 + reached);
    expect(await searchIds(w.env, w.cwd, 'marmalade')).toEqual(onDisk);

    const calls = savedCalls(w.home);
    expect(calls.length).toBeGreaterThan(TOOL_STEPS); // the warm-up's and more: the check is not empty
    const audited = new Set(auditLines(w.home).map((l) => `${l.session} ${l.tool} ${l.args}`));
    expect(calls.filter((c) => !audited.has(c))).toEqual([]);
  }, 300_000);

  it('a daemon run, the index never opened, killed with the daemon mid-run, is found by the next search', async () => {
    const w = await world();
    // The first message's run finishes; the second's stalls after a tool call (its result saved).
    w.fake.enqueue(text('The albatross count is done.'), tools([toolCall('bash', { command: 'true petrel' })]), {
      kind: 'stall',
    });
    const daemon = w.start(['daemon', '--port', '0', '--cwd', w.cwd]);
    let out = '';
    daemon.child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out) || daemon.child.exitCode !== null);
    const info = JSON.parse(readFileSync(join(w.home, 'daemon.json'), 'utf8')) as { token: string; port: number };
    const post = (body: unknown) =>
      fetch(`http://127.0.0.1:${info.port}/message`, {
        method: 'POST',
        headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const first = await post({ text: 'count the albatross colony', new_session: true });
    expect(first.status).toBe(200);
    void post({ text: 'check the petrel nests', new_session: true }).catch(() => undefined);
    await until(() => w.fake.requests.length >= 3);
    daemon.child.kill('SIGKILL');
    await daemon.done;

    expect(existsSync(join(w.home, 'rein.db'))).toBe(false);
    const onDisk = sessionIds(w.home);
    expect(onDisk).toHaveLength(2);
    const [albatross, petrel] = [await searchIds(w.env, w.cwd, 'albatross'), await searchIds(w.env, w.cwd, 'petrel')];
    expect(albatross).toHaveLength(1);
    expect(petrel).toHaveLength(1);
    expect([...albatross, ...petrel].sort()).toEqual(onDisk);
  }, 60_000);
});
