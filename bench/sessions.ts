/**
 * `npm run bench -- sessions`: the memory a long session costs to continue. Builds a 50 MB session (a
 * long coding session: ~1,900 messages, ~820 tool results of 20–100 KB; bench/largeSession.ts), then
 *
 *   - the store on its own, in this process: a load and a save, their time;
 *   - `rein run --session S` (the built CLI) against the fake Messages API in its own process, the run
 *     reading two files and answering: peak RSS of the whole process, measured as the startup benchmark
 *     measures it (python3's os.wait4, else GNU time, else /proc). Twice: the session with a compaction
 *     checkpoint near its end, as a session that outgrew its window has, and one without (housekeeping
 *     alone keeps its requests small);
 *   - `rein daemon` (the built CLI) continuing the same session with three messages in a row
 *     (`POST /message` with its `session_id`), each with two tool calls: RSS idle, the peak during each
 *     message (VmHWM on Linux, else `GET /status` sampled every 50 ms) and the RSS after it.
 *
 * Target: every peak ≤ 250 MB. Nothing is asserted. Knobs: REIN_BENCH_SESSION_MB (default 50),
 * REIN_BENCH_DAEMON_MESSAGES (default 3), REIN_BENCH_CLI (a bin/rein.js to measure instead of this one,
 * e.g. a build from before a change), REIN_BENCH_KEEP=1 (keep the temporary folder and say where).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../src-main/core/sessions/store.js';
import { text, toolCall, tools, type FakeReply } from '../tests/support/fakeAnthropic.js';
import { writeLargeSession, type LargeSession } from './largeSession.js';
import { measure } from './startup.js';
import { fmt, startRemoteFake } from './support.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REIN = process.env.REIN_BENCH_CLI ?? join(ROOT, 'bin', 'rein.js');
const MB = 1024 * 1024;
const SESSION_MB = Number(process.env.REIN_BENCH_SESSION_MB ?? 50);
const DAEMON_MESSAGES = Math.max(1, Number(process.env.REIN_BENCH_DAEMON_MESSAGES ?? 3));
const TARGET_MB = 250;

/** One message's replies: read two files of the project, then answer. */
const turn = (n: number): FakeReply[] => [
  tools([toolCall('file_read', { path: 'notes1.md' })], 'Reading the notes.'),
  tools([toolCall('file_read', { path: 'notes2.md' })]),
  text(`Continued the long session (${n}).`),
];

export async function run(): Promise<void> {
  if (!existsSync(join(REIN, '..', '..', 'out', 'cli', 'rein.js')))
    throw new Error(`${REIN}: the CLI is not built: run \`npm run build:cli\` first`);
  if (REIN !== join(ROOT, 'bin', 'rein.js')) console.log(`  measuring ${REIN}`);
  const root = await mkdtemp(join(tmpdir(), 'rein-bench-sessions-'));
  const verdicts: string[] = [];
  try {
    const project = join(root, 'project');
    await mkdir(project, { recursive: true });
    for (const n of [1, 2])
      await writeFile(
        join(project, `notes${n}.md`),
        `# Notes ${n}\n\n${'- a line of notes about the storage layer\n'.repeat(400)}`,
      );
    const made = {
      checkpoint: await sessionIn(join(root, 'made-cp'), true),
      plain: await sessionIn(join(root, 'made-plain'), false),
    };
    console.log(
      `sessions benchmark: a ${fmt(made.checkpoint.session.bytes / MB, 1)} MB session (${made.checkpoint.session.messages} messages, ${made.checkpoint.session.toolResults} tool results of 20–100 KB); target: peak RSS ≤ ${TARGET_MB} MB`,
    );

    // The store alone: what a load and a save take.
    {
      const home = await copyHome(made.checkpoint, join(root, 'store'));
      const store = new SessionStore(join(home, 'sessions'));
      let t = performance.now();
      const s = await store.load(made.checkpoint.session.id);
      const loadMs = performance.now() - t;
      t = performance.now();
      await store.save(s);
      const saveMs = performance.now() - t;
      console.log(`  store: load ${fmt(loadMs, 0)} ms, save ${fmt(saveMs, 0)} ms (in this process, under tsx)`);
    }

    for (const [label, m] of [
      ['with a compaction checkpoint', made.checkpoint],
      ['without a checkpoint', made.plain],
    ] as const) {
      const home = await copyHome(m, join(root, `cli-${m.tag}`));
      const fake = await startRemoteFake(turn(1), { light: true });
      try {
        const r = await measure(
          process.execPath,
          [REIN, 'run', '--session', m.session.id, 'Go on with the refactoring.'],
          {
            env: {
              PATH: process.env.PATH,
              HOME: root,
              LANG: 'C.UTF-8',
              NO_COLOR: '1',
              REIN_HOME: home,
              ANTHROPIC_BASE_URL: fake.url,
              ANTHROPIC_API_KEY: 'bench',
            },
            cwd: project,
          },
        );
        const grew = (await stat(join(home, 'sessions', `${m.session.id}.json`))).size - m.session.bytes;
        const ok = r.code === 0 && grew > 0;
        console.log(
          `  rein run --session, ${label}: peak RSS ${fmt(r.rssMb, 0)} MB, CPU ${fmt(r.cpuMs, 0)} ms, wall ${fmt(r.wallMs, 0)} ms${ok ? '' : ` — FAILED (exit ${r.code}): ${r.stderr.trim().slice(-300)}`}`,
        );
        verdicts.push(`rein run (${label}) ${fmt(r.rssMb, 0)} MB — ${ok && r.rssMb <= TARGET_MB ? 'ok' : 'MISSED'}`);
      } finally {
        fake.close();
      }
    }

    const home = await copyHome(made.checkpoint, join(root, 'daemon'));
    const fake = await startRemoteFake(Array.from({ length: DAEMON_MESSAGES }, (_, i) => turn(i + 1)).flat(), {
      light: true,
    });
    const daemon = await startDaemon(home, project, fake.url).catch((e: unknown) => {
      fake.close();
      throw e;
    });
    try {
      console.log(`  rein daemon: idle ${fmt(daemon.rss().now, 0)} MB`);
      let worst = 0;
      for (let i = 0; i < DAEMON_MESSAGES; i++) {
        const peak = daemon.peakTracker();
        const t0 = performance.now();
        const answer = await daemon.message({ text: `Go on (${i + 1}).`, session_id: made.checkpoint.session.id });
        const ms = performance.now() - t0;
        const top = await peak.stop();
        worst = Math.max(worst, top);
        const ok = answer.stop_reason === 'final';
        console.log(
          `    message ${i + 1} continuing the session: peak ${fmt(top, 0)} MB, after it ${fmt(daemon.rss().now, 0)} MB, ${fmt(ms, 0)} ms${ok ? '' : ` — FAILED: ${JSON.stringify(answer).slice(0, 300)}`}`,
        );
        if (!ok) worst = Number.POSITIVE_INFINITY;
      }
      verdicts.push(
        `rein daemon, ${DAEMON_MESSAGES} messages ${fmt(worst, 0)} MB — ${worst <= TARGET_MB ? 'ok' : 'MISSED'}`,
      );
    } finally {
      await daemon.stop();
      fake.close();
    }
    console.log(`  targets (≤ ${TARGET_MB} MB peak RSS): ${verdicts.join('; ')}`);
  } finally {
    if (process.env.REIN_BENCH_KEEP === '1') console.log(`  (kept ${root})`);
    else await rm(root, { recursive: true, force: true });
  }
}

interface Made {
  tag: string;
  home: string;
  session: LargeSession;
}

/** The large session, written once into a home of its own; each measurement gets a fresh copy. */
async function sessionIn(home: string, checkpoint: boolean): Promise<Made> {
  const session = writeLargeSession({ dir: join(home, 'sessions'), targetBytes: SESSION_MB * MB, checkpoint });
  return { tag: checkpoint ? 'cp' : 'plain', home, session };
}

async function copyHome(m: Made, home: string): Promise<string> {
  await mkdir(join(home, 'sessions'), { recursive: true, mode: 0o700 });
  await copyFile(m.session.file, join(home, 'sessions', `${m.session.id}.json`));
  return home;
}

interface Daemon {
  rss(): { now: number; peak: number | undefined };
  /** Follows the peak RSS from now on: VmHWM reset where Linux allows it, else sampling. */
  peakTracker(): { stop(): Promise<number> };
  message(body: object): Promise<{ stop_reason?: string }>;
  /** SIGTERM, and its exit (it writes its code cache on the way out). */
  stop(): Promise<void>;
}

async function startDaemon(home: string, cwd: string, fakeUrl: string): Promise<Daemon> {
  const child: ChildProcess = spawn(process.execPath, [REIN, 'daemon', '--port', '0'], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: join(home, '..'),
      LANG: 'C.UTF-8',
      REIN_HOME: home,
      ANTHROPIC_BASE_URL: fakeUrl,
      ANTHROPIC_API_KEY: 'bench',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`daemon exited early (${code}): ${stderr.trim()}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`unexpected first line from the daemon: ${line}`);
  const token = (JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')) as { token: string }).token;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let lastRss = 0;
  const status = (): { now: number; peak: number | undefined } => {
    try {
      const s = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) / 1024;
      return { now: kb('VmRSS'), peak: kb('VmHWM') };
    } catch {
      return { now: lastRss, peak: undefined };
    }
  };
  const statusRss = async () => {
    try {
      lastRss = ((await (await fetch(`${url}/status`, { headers })).json()) as { rss_bytes: number }).rss_bytes / MB;
    } catch {
      // The sample is skipped.
    }
    return lastRss;
  };
  await statusRss();
  return {
    rss: status,
    peakTracker() {
      // Linux: writing 5 to clear_refs resets VmHWM to the current RSS; elsewhere (or refused) /status is sampled.
      let reset: boolean;
      try {
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
        reset = status().peak !== undefined;
      } catch {
        reset = false;
      }
      let top = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          top = Math.max(top, reset ? 0 : await statusRss());
          await new Promise((ok) => setTimeout(ok, 50));
        }
      })();
      return {
        stop: async () => {
          sampling = false;
          await sampler;
          return reset ? (status().peak ?? top) : Math.max(top, await statusRss());
        },
      };
    },
    async message(body) {
      const r = await fetch(`${url}/message`, { method: 'POST', headers, body: JSON.stringify(body) });
      return (await r.json()) as { stop_reason?: string };
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
