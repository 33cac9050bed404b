/**
 * `npm run bench -- daemon`: 50 SSE clients, each sending 20 messages one after another to its own
 * route, against the built `rein daemon` in its own process and the fake Messages API in a third (zero model
 * latency; the light fake, which keeps no log, so its CPU stays small). The clients connect first, as
 * SSE clients hold their connection, and warm the daemon up with ten messages each on routes of their
 * own. Prints throughput, p50/p99 time from sending a request to its `session_start` — overall, for
 * the 50 first messages that all leave at the same instant, and for the rest — and to its
 * `session_end`, the daemon's peak RSS, the CPU each run cost the daemon and the fake, and (Linux) how
 * long the daemon's event-loop thread ran and waited for a CPU. Two passes: with the concurrency limit
 * at 50 (the daemon's own overhead) and at the default 5 (where time to session_start includes the
 * wait in the queue).
 * Targets: p99 to session_start ≤ 20 ms at concurrency 50, RSS ≤ 300 MB.
 * REIN_BENCH_CPU_PROF=<dir> also writes a CPU profile of the daemon (first pass only; sampling every
 * REIN_BENCH_CPU_PROF_INTERVAL µs, default 200).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { availableParallelism, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { fmt, percentile, startRemoteFake } from './support.js';

const CLIENTS = 50;
const MESSAGES = 20;
/**
 * Messages each client sends on a route of its own before the measurement: five hundred runs, as a
 * daemon that has been serving a while (its hot paths compiled by the JIT, its heap grown to size).
 * With two each, the first burst also measures code the JIT has not optimised yet: p99 15–33 ms in four
 * runs (docs/daemon-api.md, "Under load").
 */
const WARMUP_MESSAGES = 10;

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
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    // SSE clients hold their connection open (the desktop app, a chat relay): connect them all first,
    // so what is timed is a message on an open connection, not TCP setup.
    const conns = await Promise.all(Array.from({ length: CLIENTS }, () => RawClient.connect(daemon)));
    // Warm-up, as a daemon that has served before: the JIT, the model client, the session folder, and
    // the paths many runs at once take.
    await Promise.all(conns.map((c, i) => clientLoop(c, `warm${i}`, WARMUP_MESSAGES)));
    let peakRss = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakRss = Math.max(peakRss, await statusRss(daemon, agent));
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })();
    const cpuBefore = { daemon: processCpuMs(daemon.child.pid), fake: processCpuMs(fake.pid) };
    const schedBefore = eventLoopSched(daemon.child.pid);
    const t0 = performance.now();
    const results = await Promise.all(conns.map((c, i) => clientLoop(c, `c${i}`, MESSAGES)));
    const wall = performance.now() - t0;
    const cpuAfter = { daemon: processCpuMs(daemon.child.pid), fake: processCpuMs(fake.pid) };
    const schedAfter = eventLoopSched(daemon.child.pid);
    sampling = false;
    await sampler;
    peakRss = Math.max(peakRss, await statusRss(daemon, agent));
    agent.destroy();
    for (const c of conns) c.close();

    const toStart = results.flatMap((r) => r.toStart);
    // Every client sends its first message at the same instant: 50 arrive together. After that they
    // drift apart as real clients do; the two are shown apart so neither hides the other.
    const firsts = results.map((r) => r.toStart[0]!);
    const steady = results.flatMap((r) => r.toStart.slice(1));
    const toEnd = results.flatMap((r) => r.toEnd);
    const runs = toEnd.length;
    const target = concurrency >= CLIENTS ? '   (target p99 ≤ 20 ms)' : '   (includes the queue wait)';
    console.log(
      `\ndaemon benchmark: ${CLIENTS} SSE clients × ${MESSAGES} messages, own route each, concurrency limit ${concurrency}`,
    );
    console.log(
      `  runs completed           ${runs} in ${fmt(wall / 1000, 2)} s → ${fmt(runs / (wall / 1000), 1)} runs/s`,
    );
    console.log(
      `  request → session_start  p50 ${fmt(percentile(toStart, 50))} ms   p99 ${fmt(percentile(toStart, 99))} ms${target}`,
    );
    console.log(
      `    first messages (${CLIENTS} at once)  p50 ${fmt(percentile(firsts, 50))} ms   max ${fmt(Math.max(...firsts))} ms`,
    );
    console.log(
      `    later messages           p50 ${fmt(percentile(steady, 50))} ms   p99 ${fmt(percentile(steady, 99))} ms`,
    );
    console.log(
      `  request → session_end    p50 ${fmt(percentile(toEnd, 50))} ms   p99 ${fmt(percentile(toEnd, 99))} ms`,
    );
    console.log(`  daemon peak RSS          ${fmt(peakRss / 1024 / 1024)} MB   (target ≤ 300 MB)`);
    const used = (k: 'daemon' | 'fake') => (cpuAfter[k] ?? NaN) - (cpuBefore[k] ?? NaN);
    if (!Number.isNaN(used('daemon'))) {
      console.log(
        `  CPU per run              daemon ${fmt(used('daemon') / runs, 2)} ms, fake model ${fmt(used('fake') / runs, 2)} ms (this machine: ${availableParallelism()} cores, shared with the clients)`,
      );
    }
    if (schedBefore && schedAfter) {
      // How busy the machine was: a thread ready to run but waiting for a core delays every request it serves.
      const ran = schedAfter.ranMs - schedBefore.ranMs;
      const waited = schedAfter.waitedMs - schedBefore.waitedMs;
      console.log(
        `  daemon event-loop thread ran ${fmt(ran / 1000, 2)} s, waited ${fmt(waited / 1000, 2)} s for a free core (of ${fmt(wall / 1000, 2)} s)`,
      );
    }
  } finally {
    daemon.child.kill('SIGTERM');
    await new Promise((ok) => daemon.child.once('exit', ok));
    fake.close();
    await rm(daemon.root, { recursive: true, force: true });
  }
}

interface DaemonProcess {
  child: ChildProcess;
  port: number;
  token: string;
  /** The temporary folder holding its REIN_HOME, removed after the pass. */
  root: string;
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
  const interval = process.env.REIN_BENCH_CPU_PROF_INTERVAL ?? '200';
  const prof = process.env.REIN_BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-interval', interval, '--cpu-prof-dir', process.env.REIN_BENCH_CPU_PROF]
    : [];
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
  return { child, port: Number(new URL(url).port), token: info.token, root };
}

/** One client: `count` messages to its own route on its open connection, one after another, each streamed. */
async function clientLoop(
  conn: RawClient,
  name: string,
  count: number,
): Promise<{ toStart: number[]; toEnd: number[] }> {
  const toStart: number[] = [];
  const toEnd: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = await conn.message({ text: `message ${i} from ${name}`, source: 'bench', channel: name });
    toStart.push(t.start);
    toEnd.push(t.end);
  }
  return { toStart, toEnd };
}

/**
 * An HTTP/1.1 client cut down to what the benchmark needs, as load generators are: it writes the
 * request whole in one system call (the clock starts when the kernel has it) and only scans the
 * streamed answer for the two event names and the end of the chunked body. Node's own HTTP client
 * parsed every frame of fifty streams in the same process and on the same two cores as the daemon,
 * and its delays were counted as the daemon's. What the daemon receives and sends is unchanged.
 */
class RawClient {
  #buf = '';
  #waiter: { onData: () => void; fail: (e: Error) => void } | undefined;

  private constructor(
    private readonly d: DaemonProcess,
    private readonly socket: Socket,
  ) {
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.#buf += chunk;
      this.#waiter?.onData();
    });
    const gone = (why: string) => this.#waiter?.fail(new Error(why));
    socket.on('error', (e) => gone(e.message));
    socket.on('close', () => gone('the daemon closed the connection'));
  }

  static connect(d: DaemonProcess): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: d.port }, () => resolve(new RawClient(d, socket)));
      socket.once('error', reject);
    });
  }

  message(body: object): Promise<{ start: number; end: number }> {
    const payload = Buffer.from(JSON.stringify(body));
    const head =
      `POST /message HTTP/1.1\r\nhost: 127.0.0.1:${this.d.port}\r\nauthorization: Bearer ${this.d.token}\r\n` +
      `accept: text/event-stream\r\ncontent-type: application/json\r\ncontent-length: ${payload.length}\r\n\r\n`;
    const request = Buffer.concat([Buffer.from(head, 'latin1'), payload]);
    return new Promise((resolve, reject) => {
      let t0 = 0;
      let start = -1;
      let end = -1;
      let checked = false;
      const onData = () => {
        const now = performance.now();
        if (!checked && this.#buf.length >= 12) {
          checked = true;
          if (!this.#buf.startsWith('HTTP/1.1 200'))
            return done(new Error(`unexpected answer: ${this.#buf.slice(0, 200)}`));
        }
        if (start < 0 && this.#buf.includes('event: session_start')) start = now - t0;
        if (end < 0 && this.#buf.includes('event: session_end')) end = now - t0;
        // The zero-length chunk that ends a chunked body (frames hold JSON, which never has a raw CR LF).
        if (this.#buf.includes('\r\n0\r\n\r\n')) {
          this.#buf = '';
          return start >= 0 && end >= 0 ? done(undefined) : done(new Error('stream ended early'));
        }
        // Only the tail can hold the start of a marker split across reads.
        if (this.#buf.length > 4096) this.#buf = this.#buf.slice(-64);
      };
      const done = (err: Error | undefined) => {
        this.#waiter = undefined;
        if (err) reject(err);
        else resolve({ start, end });
      };
      this.#waiter = { onData, fail: done };
      this.socket.write(request);
      // The request is in the kernel's hands once write() returns (it fits the socket buffer).
      t0 = performance.now();
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * How long the process's main thread (its event loop) has run and has waited, ready, for a core, from
 * /proc/<pid>/task/<pid>/schedstat (Linux with scheduler statistics); undefined elsewhere.
 */
function eventLoopSched(pid: number | undefined): { ranMs: number; waitedMs: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const [ran, waited] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return ran === undefined || waited === undefined ? undefined : { ranMs: ran / 1e6, waitedMs: waited / 1e6 };
  } catch {
    return undefined;
  }
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

function statusRss(d: DaemonProcess, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port: d.port, path: '/status', agent, headers: { authorization: `Bearer ${d.token}` } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          try {
            resolve((JSON.parse(text) as { rss_bytes: number }).rss_bytes);
          } catch {
            resolve(0);
          }
        });
      },
    );
    req.on('error', () => resolve(0));
    req.end();
  });
}
