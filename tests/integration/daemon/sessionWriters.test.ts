/**
 * Two writers, one session, two real processes: `rein daemon` and `rein run --session S`, both with
 * tool calls against the scripted fake model. One writer at a time: the second waits (and says whom it
 * waits for) and continues from the file as the first left it, or is refused naming the process that
 * holds the session; a holder killed with SIGKILL gives the session up at once. Every message and tool
 * call of both runs ends up in the file, in order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, rein, startRein, tempHome } from '../../support/cli.js';
import {
  startFakeAnthropic,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
  type RecordedRequest,
} from '../../support/fakeAnthropic.js';
import { eventually, http } from './support.js';

const TOOL_STEPS = 5;
const DAEMON = 'DAEMON-TURN';
const CLI = 'CLI-TURN';

let fake: FakeAnthropic | undefined;
const children: ReturnType<typeof startRein>[] = [];
const openGates: Array<() => void> = [];

afterEach(async () => {
  for (const open of openGates.splice(0)) open();
  for (const c of children.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await c.done;
  }
  await fake?.close();
  fake = undefined;
});

/** A gate the fake model waits at before answering a run's step. */
function gate(): { opened: Promise<void>; open: () => void; reached: Promise<void>; reach: () => void } {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (reach = r));
  openGates.push(open);
  return { opened, open, reached, reach };
}

/** Which run asked (the marker of the latest prompt in its history) and how many tool steps it has done. */
function whoAsks(req: RecordedRequest): { marker: string; step: number } | undefined {
  const msgs = req.body.messages;
  let best: { marker: string; at: number } | undefined;
  for (const marker of [DAEMON, CLI]) {
    for (let i = msgs.length - 1; i >= 0; i--) {
      if (msgs[i]!.role === 'user' && JSON.stringify(msgs[i]!.content).includes(marker)) {
        if (!best || i > best.at) best = { marker, at: i };
        break;
      }
    }
  }
  return best ? { marker: best.marker, step: (msgs.length - 1 - best.at) / 2 } : undefined;
}

/**
 * Each marked run reads notes<n>.txt, one call per step n < TOOL_STEPS (ids `toolu_<d|c><n>`), then
 * answers "<marker> final". `gates[marker]` holds the run at step 2, with its first two calls saved.
 */
async function world(gates: Partial<Record<string, ReturnType<typeof gate>>>) {
  fake = await startFakeAnthropic();
  fake.fallback = async (req) => {
    const who = whoAsks(req);
    if (!who) return text('seeded');
    const g = gates[who.marker];
    if (g && who.step === 2) {
      g.reach();
      await g.opened;
    }
    if (who.step < TOOL_STEPS)
      return tools([
        toolCall(
          'file_read',
          { path: `notes${who.step}.txt` },
          `toolu_${who.marker === DAEMON ? 'd' : 'c'}${who.step}`,
        ),
      ]);
    return text(`${who.marker} final`);
  };
  const { home, cwd } = await tempHome();
  const { mkdir } = await import('node:fs/promises');
  await mkdir(cwd, { recursive: true });
  // A file per step: the same call again and again would be stopped as a loop.
  for (let k = 0; k < TOOL_STEPS; k++) await writeFile(join(cwd, `notes${k}.txt`), `nothing lost ${k}\n`);
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({ REIN_HOME: home, ANTHROPIC_BASE_URL: fake!.url, ANTHROPIC_API_KEY: 'test-key', ...extra });
  const seeded = await rein(['run', 'seed the conversation'], { env: env(), cwd });
  expect(seeded.code, seeded.stderr).toBe(0);
  const id = readdirSync(join(home, 'sessions'))
    .find((n) => n.endsWith('.json'))!
    .slice(0, -5);
  return { home, cwd, env, id, file: join(home, 'sessions', `${id}.json`) };
}

async function startDaemonProcess(home: string, cwd: string, env: NodeJS.ProcessEnv) {
  const proc = startRein(['daemon', '--port', '0', '--cwd', cwd], { env, cwd });
  children.push(proc);
  let out = '';
  let err = '';
  proc.child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    proc.child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(out)) resolve();
    });
    void proc.done.then((r) => reject(new Error(`daemon exited early (${r.code}): ${r.stderr}`)));
  });
  const info = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')) as {
    token: string;
    pid: number;
    port: number;
  };
  return { proc, port: info.port, token: info.token, pid: info.pid, stderr: () => err };
}

function startCli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const c = startRein(args, { env, cwd });
  children.push(c);
  let err = '';
  c.child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return { ...c, stderr: () => err };
}

interface Saved {
  messages: Array<{ role: string; content: unknown }>;
  message_meta: unknown[];
}

/** The session's history as a list of marks: prompts, tool calls and results by id, final answers. */
function marks(file: string): string[] {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Saved;
  expect(s.message_meta).toHaveLength(s.messages.length);
  const out: string[] = [];
  for (const m of s.messages) {
    const blocks =
      typeof m.content === 'string'
        ? [{ type: 'text', text: m.content }]
        : (m.content as Array<Record<string, unknown>>);
    for (const b of blocks) {
      if (b.type === 'tool_use') out.push(`use ${String(b.id)}`);
      else if (b.type === 'tool_result') out.push(`result ${String(b.tool_use_id)}`);
      else if (b.type === 'text') {
        const t = String(b.text);
        for (const marker of [DAEMON, CLI]) {
          if (m.role === 'user' && t.includes(marker)) out.push(`prompt ${marker}`);
          if (m.role === 'assistant' && t.includes(`${marker} final`)) out.push(`final ${marker}`);
        }
      }
    }
  }
  return out;
}

/** What a whole turn of `marker` leaves in the file. */
function turn(marker: string): string[] {
  const p = marker === DAEMON ? 'd' : 'c';
  const calls = Array.from({ length: TOOL_STEPS }, (_, k) => [`use toolu_${p}${k}`, `result toolu_${p}${k}`]).flat();
  return [`prompt ${marker}`, ...calls, `final ${marker}`];
}

describe('two writers on one session: rein daemon and rein run --session', () => {
  it('rein run waits for the daemon’s turn, says so, and continues from it: both turns whole, in order', async () => {
    const g = gate();
    const w = await world({ [DAEMON]: g });
    const d = await startDaemonProcess(w.home, w.cwd, w.env());
    const answer = http(d, 'POST', '/message', { body: { text: DAEMON, session_id: w.id } });
    await g.reached;

    const cli = startCli(['run', '--session', w.id, CLI], w.env({ REIN_SESSION_WAIT_MS: '120000' }), w.cwd);
    await eventually(() => cli.stderr().includes('waiting…'));
    expect(cli.stderr()).toContain(`rein: session ${w.id} is in use by the Rein daemon (pid ${d.pid}); waiting…`);
    g.open();

    const a = await answer;
    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({ stop_reason: 'final', text: `${DAEMON} final`, session_id: w.id });
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${CLI} final`);

    expect(marks(w.file)).toEqual([...turn(DAEMON), ...turn(CLI)]);
    // The CLI's first model call already had the daemon's answer: it loaded the session after the daemon's last save.
    const firstCli = fake!.requests.find((q) => whoAsks(q)?.marker === CLI)!;
    expect(JSON.stringify(firstCli.body.messages)).toContain(`${DAEMON} final`);
  }, 90_000);

  it('rein run is refused with exit 1, naming the daemon’s pid, when the daemon does not free the session in time', async () => {
    const g = gate();
    const w = await world({ [DAEMON]: g });
    const d = await startDaemonProcess(w.home, w.cwd, w.env());
    const answer = http(d, 'POST', '/message', { body: { text: DAEMON, session_id: w.id } });
    await g.reached;

    const r = await rein(['run', '--session', w.id, CLI], { env: w.env({ REIN_SESSION_WAIT_MS: '200' }), cwd: w.cwd });

    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `rein: session ${w.id} is in use by the Rein daemon (pid ${d.pid}) and was not freed within 0.2 s; try again when its turn is over`,
    );
    g.open();
    expect((await answer).json).toMatchObject({ stop_reason: 'final' });
    expect(marks(w.file)).toEqual(turn(DAEMON));
  }, 90_000);

  it('the daemon waits for a rein run on the session (its route queue) and then continues from it', async () => {
    const g = gate();
    const w = await world({ [CLI]: g });
    const d = await startDaemonProcess(w.home, w.cwd, w.env());
    const cli = startCli(['run', '--session', w.id, CLI], w.env(), w.cwd);
    await g.reached;

    const answer = http(d, 'POST', '/message', { body: { text: DAEMON, session_id: w.id } });
    await eventually(() => d.stderr().includes('waiting…'));
    expect(d.stderr()).toContain(`session ${w.id} is in use by rein run (pid ${cli.child.pid}); waiting…`);
    g.open();

    expect((await cli.done).code).toBe(0);
    const a = await answer;
    expect(a.json).toMatchObject({ stop_reason: 'final', text: `${DAEMON} final` });
    expect(marks(w.file)).toEqual([...turn(CLI), ...turn(DAEMON)]);
  }, 90_000);

  it('the daemon answers 409 session_busy naming the rein run’s pid when it does not free the session in time', async () => {
    const g = gate();
    const w = await world({ [CLI]: g });
    const d = await startDaemonProcess(w.home, w.cwd, w.env({ REIN_SESSION_WAIT_MS: '200' }));
    const cli = startCli(['run', '--session', w.id, CLI], w.env(), w.cwd);
    await g.reached;

    const a = await http(d, 'POST', '/message', { body: { text: DAEMON, session_id: w.id } });

    expect(a.status, a.text).toBe(409);
    expect(a.json).toMatchObject({ code: 'session_busy' });
    expect(a.json.error).toContain(`session ${w.id} is in use by rein run (pid ${cli.child.pid})`);
    g.open();
    expect((await cli.done).code).toBe(0);
    expect(marks(w.file)).toEqual(turn(CLI));
  }, 90_000);

  it('a rein run killed with SIGKILL mid-turn gives the session up at once: the daemon continues from its last save', async () => {
    const g = gate();
    const w = await world({ [CLI]: g });
    // No wait at all: a lock still counted as held would be a refusal.
    const d = await startDaemonProcess(w.home, w.cwd, w.env({ REIN_SESSION_WAIT_MS: '0' }));
    const cli = startCli(['run', '--session', w.id, CLI], w.env(), w.cwd);
    await g.reached;
    cli.child.kill('SIGKILL');
    await cli.done;

    const a = await http(d, 'POST', '/message', { body: { text: DAEMON, session_id: w.id } });

    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({ stop_reason: 'final', text: `${DAEMON} final` });
    // The killed run's two saved tool calls, then the daemon's whole turn.
    expect(marks(w.file)).toEqual([
      `prompt ${CLI}`,
      'use toolu_c0',
      'result toolu_c0',
      'use toolu_c1',
      'result toolu_c1',
      ...turn(DAEMON),
    ]);
  }, 90_000);
});
