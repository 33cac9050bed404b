/**
 * `npm run bench -- daemon`: 50 SSE clients, each sending 20 messages one after another to its own
 * route, against the built `rein daemon` in its own process and the fake Messages API in a third (zero model
 * latency; the light fake, which keeps no log, so its CPU stays small). The clients connect first, as
 * SSE clients hold their connection. Prints throughput, p50/p99 time from sending a request to its
 * `session_start` — overall, for the 50 first messages that all leave at the same instant, and for the
 * rest — and to its `session_end`, the daemon's peak RSS and the CPU each run cost the daemon and the
 * fake. Two passes: with the concurrency limit at 50 (the daemon's own overhead) and at the default 5
 * (where time to session_start includes the wait in the queue).
 * Targets: p99 to session_start ≤ 20 ms at concurrency 50, RSS ≤ 300 MB.
 * REIN_BENCH_CPU_PROF=<dir> also writes a CPU profile of the daemon (first pass only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { availableParallelism, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmt, percentile, startRemoteFake } from './support.js';

const CLIENTS = 50;
const MESSAGES = 20;

export async function run(): Promise<void> {
  await pass(50);
  if (!process.env.REIN_BENCH_CPU_PROF) await pass(5);
}

async function pass(concurrency: number): Promise<void> {
  // The light fake keeps no log and does no cache accounting: this measures the daemon, not the fake.
  const fake = await startRemoteFake([], { light: true });
  const daemon = await startDaemonProcess(fake.url, concurrency).catch((e: unknown) => {
    fake.close();
    throw e;
  });
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });
    // SSE clients hold their connection open (the desktop app, a chat relay): connect them all first,
    // so what is timed is a message on an open connection, not TCP setup.
    await Promise.all(Array.from({ length: CLIENTS }, () => health(daemon, agent)));
    // Warm-up, as a daemon that has served before: the JIT, the model client, the session folder, and
    // the paths many runs at once take (two messages from each client, on routes of their own).
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => clientLoop(daemon, `warm${i}`, 2, agent)));
    let peakRss = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakRss = Math.max(peakRss, await statusRss(daemon, agent));
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })();
    const cpuBefore = { daemon: processCpuMs(daemon.child.pid), fake: processCpuMs(fake.pid) };
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => clientLoop(daemon, `c${i}`, MESSAGES, agent)));
    const wall = performance.now() - t0;
    const cpuAfter = { daemon: processCpuMs(daemon.child.pid), fake: processCpuMs(fake.pid) };
    sampling = false;
    await sampler;
    peakRss = Math.max(peakRss, await statusRss(daemon, agent));
    agent.destroy();

    const toStart = results.flatMap((r) => r.toStart);
    // Every client sends its first message at the same instant: 50 arrive together. After that they
    // drift apart as real clients do; the two are shown apart so neither hides the other.
    const firsts = results.map((r) => r.toStart[0]!);
    const steady = results.flatMap((r) => r.toStart.slice(1));
    const toEnd = results.flatMap((r) => r.toEnd);
    const runs = toEnd.length;
    const target = concurrency >= CLIENTS ? '   (target p99 ≤ 20 ms)' : '   (includes the queue wait)';
    console.log(`\ndaemon benchmark: ${CLIENTS} SSE clients × ${MESSAGES} messages, own route each, concurrency limit ${concurrency}`);
    console.log(`  runs completed           ${runs} in ${fmt(wall / 1000, 2)} s → ${fmt(runs / (wall / 1000), 1)} runs/s`);
    console.log(`  request → session_start  p50 ${fmt(percentile(toStart, 50))} ms   p99 ${fmt(percentile(toStart, 99))} ms${target}`);
    console.log(`    first messages (${CLIENTS} at once)  p50 ${fmt(percentile(firsts, 50))} ms   max ${fmt(Math.max(...firsts))} ms`);
    console.log(`    later messages           p50 ${fmt(percentile(steady, 50))} ms   p99 ${fmt(percentile(steady, 99))} ms`);
    console.log(`  request → session_end    p50 ${fmt(percentile(toEnd, 50))} ms   p99 ${fmt(percentile(toEnd, 99))} ms`);
    console.log(`  daemon peak RSS          ${fmt(peakRss / 1024 / 1024)} MB   (target ≤ 300 MB)`);
    const used = (k: 'daemon' | 'fake') => (cpuAfter[k] ?? NaN) - (cpuBefore[k] ?? NaN);
    if (!Number.isNaN(used('daemon'))) {
      console.log(`  CPU per run              daemon ${fmt(used('daemon') / runs, 2)} ms, fake model ${fmt(used('fake') / runs, 2)} ms (this machine: ${availableParallelism()} cores, shared with the clients)`);
    }
  } finally {
    daemon.child.kill('SIGTERM');
    await new Promise((ok) => daemon.child.once('exit', ok));
    fake.close();
  }
}

interface DaemonProcess {
  child: ChildProcess;
  port: number;
  token: string;
}

/**
 * The daemon as users run it: the built CLI (`out/cli/rein.js daemon`), in a temporary REIN_HOME whose
 * config.yaml sets the concurrency limit. Its URL comes from the first stdout line, its token from
 * daemon.json.
 */
async function startDaemonProcess(fakeUrl: string, concurrency: number): Promise<DaemonProcess> {
  const built = fileURLToPath(new URL('../out/cli/rein.js', import.meta.url));
  if (!existsSync(built)) throw new Error(`${built} is not built: run \`npm run build:cli\` first`);
  const cli = fileURLToPath(new URL('../bin/rein.js', import.meta.url));
  const root = await mkdtemp(join(tmpdir(), 'rein-bench-daemon-'));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.yaml'), `daemon:\n  max_concurrent_runs: ${concurrency}\n`);
  // REIN_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the daemon there (open it in Chrome DevTools).
  const prof = process.env.REIN_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', process.env.REIN_BENCH_CPU_PROF] : [];
  const child = spawn(process.execPath, [...prof, cli, 'daemon', '--port', '0'], {
    cwd: root,
    env: { ...process.env, REIN_HOME: home, ANTHROPIC_BASE_URL: fakeUrl, ANTHROPIC_API_KEY: 'bench' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`daemon exited early (${code}): ${stderr.trim()}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`unexpected first line from the daemon: ${line}`);
  const info = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')) as { token: string };
  return { child, port: Number(new URL(url).port), token: info.token };
}

/** One client: `count` messages to its own route, each streamed; times to session_start and session_end. */
async function clientLoop(d: DaemonProcess, name: string, count: number, agent?: Agent): Promise<{ toStart: number[]; toEnd: number[] }> {
  const toStart: number[] = [];
  const toEnd: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = await streamOne(d, { text: `message ${i} from ${name}`, source: 'bench', channel: name }, agent);
    toStart.push(t.start);
    toEnd.push(t.end);
  }
  return { toStart, toEnd };
}

function streamOne(d: DaemonProcess, body: object, agent?: Agent): Promise<{ start: number; end: number }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    // Timed from when the request has been handed to the socket: building it is the client's own work
    // (fifty built in one go take this client several milliseconds).
    let t0 = performance.now();
    let start = -1;
    let end = -1;
    const req = request(
      {
        host: '127.0.0.1',
        port: d.port,
        method: 'POST',
        path: '/message',
        ...(agent ? { agent } : {}),
        headers: {
          authorization: `Bearer ${d.token}`,
          accept: 'text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          buf += chunk;
          if (start < 0 && buf.includes('event: session_start')) start = performance.now() - t0;
          if (end < 0 && buf.includes('event: session_end')) end = performance.now() - t0;
          // Only the tail can hold the start of a marker split across chunks.
          if (buf.length > 4096) buf = buf.slice(-64);
        });
        res.on('end', () => (start >= 0 && end >= 0 ? resolve({ start, end }) : reject(new Error('stream ended early'))));
      },
    );
    req.on('finish', () => (t0 = performance.now()));
    req.on('error', reject);
    req.end(payload);
  });
}

/** CPU time (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
  } catch {
    return undefined;
  }
}

function health(d: DaemonProcess, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: d.port, path: '/health', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

function statusRss(d: DaemonProcess, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: d.port, path: '/status', agent, headers: { authorization: `Bearer ${d.token}` } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        try {
          resolve((JSON.parse(text) as { rss_bytes: number }).rss_bytes);
        } catch {
          resolve(0);
        }
      });
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}
