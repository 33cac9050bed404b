/**
 * `npm run bench -- daemon`: 50 SSE clients, each sending 20 messages one after another to its own
 * route, against a daemon in its own process and the fake Messages API in a third (zero model
 * latency). Prints throughput, p50/p99 time from sending a request to its `session_start` and to its
 * `session_end`, and the daemon's peak RSS. Two passes: with the concurrency limit at 50 (the daemon's
 * own overhead) and at the default 5 (where time to session_start includes the wait in the queue).
 * Targets: p99 to session_start ≤ 20 ms at concurrency 50, RSS ≤ 300 MB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { fmt, percentile, startRemoteFake } from './support.js';

const CLIENTS = 50;
const MESSAGES = 20;

export async function run(): Promise<void> {
  await pass(50);
  await pass(5);
}

async function pass(concurrency: number): Promise<void> {
  const fake = await startRemoteFake([]);
  const daemon = await startDaemonProcess(fake.url, concurrency);
  try {
    // Warm-up: JIT, SDK, first session folder.
    await clientLoop(daemon, 'warm', 5);
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });
    let peakRss = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakRss = Math.max(peakRss, await statusRss(daemon, agent));
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })();
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => clientLoop(daemon, `c${i}`, MESSAGES, agent)));
    const wall = performance.now() - t0;
    sampling = false;
    await sampler;
    peakRss = Math.max(peakRss, await statusRss(daemon, agent));
    agent.destroy();

    const toStart = results.flatMap((r) => r.toStart);
    const toEnd = results.flatMap((r) => r.toEnd);
    const runs = toEnd.length;
    console.log(`\ndaemon benchmark: ${CLIENTS} SSE clients × ${MESSAGES} messages, own route each, concurrency limit ${concurrency}`);
    console.log(`  runs completed        ${runs} in ${fmt(wall / 1000, 2)} s → ${fmt(runs / (wall / 1000), 1)} runs/s`);
    console.log(`  request → session_start  p50 ${fmt(percentile(toStart, 50))} ms   p99 ${fmt(percentile(toStart, 99))} ms${concurrency >= CLIENTS ? '   (target p99 ≤ 20 ms)' : '   (includes the queue wait)'}`);
    console.log(`  request → session_end    p50 ${fmt(percentile(toEnd, 50))} ms   p99 ${fmt(percentile(toEnd, 99))} ms`);
    console.log(`  daemon peak RSS       ${fmt(peakRss / 1024 / 1024)} MB   (target ≤ 300 MB)`);
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

async function startDaemonProcess(fakeUrl: string, concurrency: number): Promise<DaemonProcess> {
  const entry = fileURLToPath(new URL('./daemonProcess.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ANTHROPIC_BASE_URL: fakeUrl, ANTHROPIC_API_KEY: 'bench', REIN_BENCH_CONCURRENCY: String(concurrency) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`daemon exited early (${code})`)));
  });
  const [url, token] = line.split(' ');
  return { child, port: Number(new URL(url!).port), token: token! };
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
    const t0 = performance.now();
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
    req.on('error', reject);
    req.end(payload);
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
