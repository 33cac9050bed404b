/**
 * `npm run bench -- startup`: what a fresh process costs. Every launchd schedule run, heartbeat, hook
 * that calls `rein` and every `rein` command starts one, and the menu-bar app starts at login. Prints CPU
 * (user + system, the process and the children it waited for) and peak RSS, medians over several runs,
 * each beside bare Node (`node -e 0`) and, where it does the same work, Claude Code:
 *
 *   - `rein --version`;
 *   - a one-request `rein run` and a 20-call run (17 requests, some with parallel calls, real built-in
 *     tools: file_read, grep, glob, directory_list, bash with `ls`/`echo`/`wc`/`head`) against the fake
 *     Messages API in its own process, in a temporary project with temporary HOME and REIN_HOME; Claude
 *     Code plays the same session with its own tool names;
 *   - `rein daemon`: start to listening (CPU, wall), and its RSS when idle;
 *   - the Electron main process, built here into a temporary folder and loaded in plain Node with
 *     `electron` stubbed (bench/electron/): its headless daemon (what launchd starts) to listening and
 *     idle, and a headless CLI command (`--headless schedule list`).
 *
 * Claude Code is installed from the npm registry into a cache folder (never as a dependency of Rein);
 * when that is impossible the ratios use the figure recorded in issue 18 (1.47 s CPU for the
 * one-request run), and say so. Measuring: python3's os.wait4 (µs), else GNU time (10 ms), else /proc.
 * Warm-up runs come first (the code cache, the temporary homes); nothing here asserts: targets are
 * printed for a person to judge.
 *
 * Knobs: REIN_BENCH_STARTUP_RUNS (default 5), REIN_BENCH_CLI (a bin/rein.js to measure instead of this
 * one, e.g. a build from before a change), REIN_BENCH_CLAUDE (a `claude` executable, or `off`),
 * REIN_BENCH_CLAUDE_DIR (where to install it; default the user's cache folder), REIN_BENCH_IDLE_MS
 * (how long the daemons sit idle before their RSS is read; default 3000).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { text, toolCall, tools, type FakeBlock, type FakeReply } from '../tests/support/fakeAnthropic.js';
import { fmt, median } from './support.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Math.max(1, Number(process.env.REIN_BENCH_STARTUP_RUNS ?? 5));
const REIN = process.env.REIN_BENCH_CLI ?? join(ROOT, 'bin', 'rein.js');
const IDLE_MS = Number(process.env.REIN_BENCH_IDLE_MS ?? 3000);
/** Issue 18's figure for Claude Code's one-request run, for when it cannot be run here. */
const RECORDED_CLAUDE_ONE_REQUEST_CPU_MS = 1470;

export interface Sample {
  cpuMs: number;
  rssMb: number;
  wallMs: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

// ---- measuring a child ------------------------------------------------------------------------------

type Meter = 'wait4' | 'gnu-time' | 'proc';

const WAIT4 = `
import os, sys, json, time
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
rss = ru.ru_maxrss / (1024 * 1024 if sys.platform == 'darwin' else 1024)
with open(os.environ['REIN_BENCH_RUSAGE'], 'w') as f:
    json.dump({'cpu_ms': (ru.ru_utime + ru.ru_stime) * 1000, 'rss_mb': rss, 'wall_ms': (time.monotonic() - t0) * 1000}, f)
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, 'waitstatus_to_exitcode') else status >> 8)
`;

function pickMeter(): Meter {
  if (spawnSync('python3', ['-c', 'import os; os.wait4'], { stdio: 'ignore' }).status === 0) return 'wait4';
  if (spawnSync('/usr/bin/time', ['-f', '%U', 'true'], { stdio: 'ignore' }).status === 0) return 'gnu-time';
  return 'proc';
}
const METER = pickMeter();
const METER_NOTE: Record<Meter, string> = {
  wait4: 'os.wait4 of a python3 wrapper (µs resolution)',
  'gnu-time': 'GNU time (10 ms resolution)',
  proc: '/proc polling (approximate: the last tick and VmHWM read before exit)',
};

/** One run of a command: its CPU, peak RSS and wall time (also used by bench/sessions.ts). */
export async function measure(
  cmd: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string; stdin?: string },
): Promise<Sample> {
  const out = join(tmpdir(), `rein-bench-rusage-${process.pid}-${Math.random().toString(16).slice(2)}.json`);
  let argv: string[];
  if (METER === 'wait4') argv = ['python3', '-c', WAIT4, cmd, ...args];
  else if (METER === 'gnu-time') argv = ['/usr/bin/time', '-q', '-f', '%e %U %S %M', '-o', out, cmd, ...args];
  else argv = [cmd, ...args];
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd,
    env: { ...opts.env, REIN_BENCH_RUSAGE: out },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.end(opts.stdin ?? '');
  let polled = { cpuMs: 0, rssMb: 0 };
  const poll = METER === 'proc' ? setInterval(() => (polled = procStats(child.pid!) ?? polled), 5) : undefined;
  // A run that never ends (a client retrying forever) must not hold the benchmark: it fails after 2 minutes.
  const limit = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  clearTimeout(limit);
  if (poll) clearInterval(poll);
  const wallMs = performance.now() - t0;
  let cpuMs = polled.cpuMs;
  let rssMb = polled.rssMb;
  try {
    if (METER === 'wait4') {
      const r = JSON.parse(readFileSync(out, 'utf8')) as { cpu_ms: number; rss_mb: number };
      cpuMs = r.cpu_ms;
      rssMb = r.rss_mb;
    } else if (METER === 'gnu-time') {
      const [, user, sys, maxKb] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      cpuMs = (user! + sys!) * 1000;
      rssMb = maxKb! / 1024;
    }
  } finally {
    rmSync(out, { force: true });
  }
  return { cpuMs, rssMb, wallMs, code, stdout, stderr };
}

/** CPU so far and RSS of a running process (Linux: /proc; elsewhere: ps, with coarser CPU). */
function procStats(pid: number): { cpuMs: number; rssMb: number; hwmMb?: number } | undefined {
  try {
    if (process.platform === 'linux') {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return { cpuMs: ticks * 10, rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
    }
    const r = spawnSync('ps', ['-o', 'rss=,time=', '-p', String(pid)], { encoding: 'utf8' });
    const [rss, time] = r.stdout.trim().split(/\s+/);
    const [min, sec] = (time ?? '0:0').split(':').map(Number);
    return { cpuMs: ((min ?? 0) * 60 + (sec ?? 0)) * 1000, rssMb: Number(rss) / 1024 };
  } catch {
    return undefined;
  }
}

// ---- the world the runs happen in --------------------------------------------------------------------

interface World {
  root: string;
  project: string;
  home: string;
  reinHome: string;
}

export async function world(name: string): Promise<World> {
  const root = await mkdtemp(join(tmpdir(), `rein-bench-startup-${name}-`));
  const w = { root, project: join(root, 'project'), home: join(root, 'home'), reinHome: join(root, 'home', '.rein') };
  for (const d of [w.project, w.home, w.reinHome]) mkdirSync(d, { recursive: true });
  for (let i = 0; i < 8; i++) {
    writeFileSync(
      join(w.project, `file${i}.txt`),
      Array.from({ length: 200 }, (_, n) => `line ${n} of file ${i}: lorem ipsum dolor sit amet`).join('\n'),
    );
  }
  writeFileSync(join(w.project, 'README.md'), '# A small project\n\nText files to read and search.\n');
  return w;
}

/** The environment a clean shell would give: nothing of this process's own configuration leaks in. */
export function baseEnv(w: World): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: w.home, LANG: 'C.UTF-8', NO_COLOR: '1', TMPDIR: tmpdir() };
}

// ---- the scripted sessions ---------------------------------------------------------------------------

type Flavour = 'rein' | 'claude';

/** 16 requests with tool calls (20 calls; five of them in parallel pairs) and a final answer: 17 requests. */
export function twentyCalls(f: Flavour, project: string): FakeReply[] {
  const read = (i: number): FakeBlock =>
    f === 'rein'
      ? toolCall('file_read', { path: `file${i}.txt`, limit: 50 })
      : toolCall('Read', { file_path: join(project, `file${i}.txt`), limit: 50 });
  const grep = (pattern: string, extra: { glob?: string; path?: string } = {}): FakeBlock =>
    f === 'rein'
      ? toolCall('grep', {
          pattern,
          path: extra.path ?? '.',
          ...(extra.glob ? { glob: extra.glob } : {}),
          max_results: 20,
        })
      : toolCall('Grep', {
          pattern,
          path: join(project, extra.path ?? '.'),
          ...(extra.glob ? { glob: extra.glob } : {}),
          output_mode: 'content',
          head_limit: 20,
        });
  const glob = (pattern: string): FakeBlock =>
    f === 'rein' ? toolCall('glob', { pattern }) : toolCall('Glob', { pattern, path: project });
  const bash = (command: string): FakeBlock =>
    f === 'rein' ? toolCall('bash', { command }) : toolCall('Bash', { command, description: 'look at the files' });
  const list = (): FakeBlock =>
    f === 'rein'
      ? toolCall('directory_list', { path: '.' })
      : toolCall('Bash', { command: 'ls', description: 'list the folder' });
  return [
    tools([read(0), read(1)], 'Reading the first files.'),
    tools([bash('ls -la')]),
    tools([grep('line 1[0-9] of')]),
    tools([read(2)]),
    tools([glob('*.txt')]),
    tools([bash('echo hello')]),
    tools([read(3), read(4)]),
    tools([grep('ipsum', { glob: '*.txt' })]),
    tools([bash('wc -l file1.txt')]),
    tools([read(5)]),
    tools([list()]),
    tools([bash('head -3 file0.txt')]),
    tools([read(6), grep('dolor', { path: 'file3.txt' })]),
    tools([bash('echo done')]),
    tools([read(7)]),
    tools([grep('amet'), glob('file1*')]),
    text('All twenty calls are done; the files hold 200 lines each.'),
  ];
}
const ONE_REQUEST: FakeReply[] = [text('Hello from the fake model: one request, no tools.')];

interface Fake {
  url: string;
  stats(): { requests: number; sideRequests: number; toolResults: number; toolErrors: number };
  close(): void;
}

export async function startFake(steps: FakeReply[]): Promise<Fake> {
  const statsFile = join(tmpdir(), `rein-bench-fake-${process.pid}-${Math.random().toString(16).slice(2)}.json`);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./startupFake.ts', import.meta.url))],
    {
      env: { ...process.env, REIN_FAKE_STEPS: JSON.stringify(steps), REIN_FAKE_STATS: statsFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await firstLine(child);
  return {
    url,
    stats: () => {
      try {
        return JSON.parse(readFileSync(statsFile, 'utf8')) as ReturnType<Fake['stats']>;
      } catch {
        return { requests: 0, sideRequests: 0, toolResults: 0, toolErrors: 0 };
      }
    },
    close: () => {
      child.kill('SIGTERM');
      rmSync(statsFile, { force: true });
    },
  };
}

function firstLine(child: ChildProcess, match?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      for (const line of buf.split('\n').slice(0, -1)) if (!match || match.test(line)) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`exited early (${code}): ${buf.slice(0, 500)}`)));
  });
}

// ---- Claude Code -----------------------------------------------------------------------------------

function claudeCommand(): { cmd: string; args: string[]; version: string } | { why: string } {
  const given = process.env.REIN_BENCH_CLAUDE;
  if (given === 'off') return { why: 'REIN_BENCH_CLAUDE=off' };
  const probe = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, [...args, '--version'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH, HOME: tmpdir() },
    });
    return r.status === 0 ? { cmd, args, version: r.stdout.trim() } : undefined;
  };
  if (given) return probe(given, []) ?? { why: `${given} --version failed` };
  const dir =
    process.env.REIN_BENCH_CLAUDE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'rein', 'bench', 'claude-code');
  const pkg = join(dir, 'node_modules', '@anthropic-ai', 'claude-code');
  if (!existsSync(pkg)) {
    mkdirSync(dir, { recursive: true });
    console.log(`  (installing @anthropic-ai/claude-code into ${dir} for the comparison…)`);
    const r = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        dir,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '@anthropic-ai/claude-code',
      ],
      { encoding: 'utf8', timeout: 300_000 },
    );
    if (r.status !== 0)
      return {
        why: `npm install @anthropic-ai/claude-code failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' ')}`,
      };
  }
  const native = join(pkg, 'bin', 'claude.exe');
  const script = join(pkg, 'cli.js');
  return (
    (existsSync(native) ? probe(native, []) : undefined) ??
    (existsSync(script) ? probe(process.execPath, [script]) : undefined) ?? { why: `no runnable claude in ${pkg}` }
  );
}

function claudeEnv(w: World, url: string): NodeJS.ProcessEnv {
  return {
    ...baseEnv(w),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-ant-bench-dummy',
    // Nothing but the model: no update checks, telemetry or error reports (there is no internet here).
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
}

const CLAUDE_TOOLS = 'Read,Grep,Glob,Bash(ls:*),Bash(echo:*),Bash(wc:*),Bash(head:*)';

// ---- reporting -------------------------------------------------------------------------------------

interface Row {
  label: string;
  samples: Sample[];
  note?: string;
}

const med = (r: Row, k: 'cpuMs' | 'rssMb' | 'wallMs') => median(r.samples.map((s) => s[k]));

function printRow(r: Row, bare: Row): void {
  const cpu = med(r, 'cpuMs');
  const ratio = cpu / med(bare, 'cpuMs');
  console.log(
    `  ${r.label.padEnd(44)} CPU ${fmt(cpu, 0).padStart(5)} ms (${fmt(ratio, 1).padStart(4)}× bare node)   peak RSS ${fmt(med(r, 'rssMb'), 0).padStart(4)} MB   wall ${fmt(med(r, 'wallMs'), 0).padStart(5)} ms${r.note ? `   ${r.note}` : ''}`,
  );
}

function failed(r: Row, ok: (s: Sample) => boolean): string | undefined {
  const bad = r.samples.find((s) => !ok(s));
  return bad
    ? `${r.label}: a run failed (exit ${bad.code}): ${(bad.stderr || bad.stdout).trim().slice(0, 400)}`
    : undefined;
}

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

// ---- the benchmark ---------------------------------------------------------------------------------

async function repeat(label: string, once: () => Promise<Sample>, warm = 1): Promise<Row> {
  for (let i = 0; i < warm; i++) await once();
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await once());
  return { label, samples };
}

/** The same agent session, played by Rein and by Claude Code in turn (one after the other, run by run). */
async function session(
  name: string,
  steps: (f: Flavour, project: string) => FakeReply[],
  claude: ReturnType<typeof claudeCommand>,
) {
  const rw = await world(`${name}-rein`);
  const cw = await world(`${name}-claude`);
  const reinFake = await startFake(steps('rein', rw.project));
  const claudeFake = 'cmd' in claude ? await startFake(steps('claude', cw.project)) : undefined;
  const reinEnv = {
    ...baseEnv(rw),
    REIN_HOME: rw.reinHome,
    ANTHROPIC_BASE_URL: reinFake.url,
    ANTHROPIC_API_KEY: 'bench-dummy',
  };
  const reinOnce = () =>
    measure(process.execPath, [REIN, 'run', '--yes', '--json', 'Look through these files and summarise them.'], {
      env: reinEnv,
      cwd: rw.project,
    });
  const claudeOnce =
    'cmd' in claude && claudeFake
      ? () =>
          measure(
            claude.cmd,
            [
              ...claude.args,
              '-p',
              'Look through these files and summarise them.',
              '--output-format',
              'json',
              '--allowedTools',
              CLAUDE_TOOLS,
            ],
            {
              env: claudeEnv(cw, claudeFake.url),
              cwd: cw.project,
            },
          )
      : undefined;
  try {
    const rein: Row = { label: '', samples: [] };
    const cc: Row = { label: '', samples: [] };
    const tally = { rein: [] as string[], claude: [] as string[] };
    const count = (f: Fake, before: ReturnType<Fake['stats']>) => {
      const s = f.stats();
      return `${s.requests - before.requests - (s.sideRequests - before.sideRequests)} requests${s.sideRequests > before.sideRequests ? ` (+${s.sideRequests - before.sideRequests} side)` : ''}, ${s.toolResults} tool results${s.toolErrors ? ` (${s.toolErrors} errors)` : ''}`;
    };
    for (let i = -1; i < RUNS; i++) {
      let before = reinFake.stats();
      const r = await reinOnce();
      if (i >= 0) rein.samples.push(r);
      tally.rein.push(count(reinFake, before));
      if (claudeOnce && claudeFake) {
        before = claudeFake.stats();
        const c = await claudeOnce();
        if (i >= 0) cc.samples.push(c);
        tally.claude.push(count(claudeFake, before));
      }
    }
    return {
      rein,
      claude: claudeOnce ? cc : undefined,
      tally: { rein: tally.rein.at(-1), claude: tally.claude.at(-1) },
    };
  } finally {
    reinFake.close();
    claudeFake?.close();
    rmSync(rw.root, { recursive: true, force: true });
    rmSync(cw.root, { recursive: true, force: true });
  }
}

/** A long-lived process: CPU from start until a line matching `listening` appears, then its RSS after sitting idle. */
async function daemonOnce(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ cpuMs: number; wallMs: number; idleRssMb: number; hwmMb: number }> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  try {
    await firstLine(child, /listening/).catch((e: unknown) => {
      throw new Error(`${String(e)} ${err.slice(0, 400)}`);
    });
    const wallMs = performance.now() - t0;
    const at = procStats(child.pid!);
    await new Promise((ok) => setTimeout(ok, IDLE_MS));
    const idle = procStats(child.pid!);
    return { cpuMs: at?.cpuMs ?? NaN, wallMs, idleRssMb: idle?.rssMb ?? NaN, hwmMb: idle?.hwmMb ?? idle?.rssMb ?? NaN };
  } finally {
    child.kill('SIGINT');
    await new Promise((ok) => {
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        ok(undefined);
      }, 8000);
      child.once('exit', () => {
        clearTimeout(t);
        ok(undefined);
      });
    });
  }
}

async function daemonRows(
  label: string,
  start: (w: World) => { cmd: string; args: string[]; env: NodeJS.ProcessEnv },
): Promise<string> {
  const runs: Awaited<ReturnType<typeof daemonOnce>>[] = [];
  for (let i = -1; i < RUNS; i++) {
    const w = await world('daemon');
    writeFileSync(join(w.reinHome, 'config.yaml'), 'daemon:\n  port: 0\n');
    try {
      const s = start(w);
      const r = await daemonOnce(s.cmd, s.args, s.env, w.project);
      if (i >= 0) runs.push(r);
    } finally {
      rmSync(w.root, { recursive: true, force: true });
    }
  }
  const m = (k: keyof (typeof runs)[number]) => median(runs.map((r) => r[k]));
  return `  ${label.padEnd(44)} CPU to listening ${fmt(m('cpuMs'), 0).padStart(4)} ms   wall ${fmt(m('wallMs'), 0).padStart(4)} ms   RSS idle ${fmt(m('idleRssMb'), 0).padStart(4)} MB (peak ${fmt(m('hwmMb'), 0)} MB)|${m('idleRssMb')}`;
}

/**
 * The Electron main process, built here (electron-vite's own config) into a temporary folder inside the
 * checkout's out/, with `electron` resolved to bench/electron/stub.mjs by a node_modules folder of its
 * own: Node looks there first and finds the real native addons in the checkout's node_modules after it.
 * (Not a module.register() resolve hook: that runs in a thread of its own, ~13 MB of RSS that would be
 * counted as the main process's.)
 */
async function buildMain(): Promise<string> {
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  const out = await mkdtemp(join(ROOT, 'out', 'bench-main-'));
  const stubDir = join(out, 'node_modules', 'electron');
  mkdirSync(stubDir, { recursive: true });
  writeFileSync(join(stubDir, 'package.json'), '{ "name": "electron", "type": "module", "main": "index.js" }\n');
  writeFileSync(
    join(stubDir, 'index.js'),
    readFileSync(fileURLToPath(new URL('./electron/stub.mjs', import.meta.url)), 'utf8'),
  );
  const { resolveConfig } = await import('electron-vite');
  const { build } = await import('vite');
  const { config } = await resolveConfig(
    { build: { outDir: out }, logLevel: 'silent', root: ROOT },
    'build',
    'production',
  );
  if (!config?.main) throw new Error('electron-vite gave no main-process config (electron.vite.config.ts)');
  await build({ ...config.main, logLevel: 'silent' });
  return out;
}

export async function run(): Promise<void> {
  console.log(`startup benchmark (${RUNS} runs each after a warm-up, medians; CPU by ${METER_NOTE[METER]})`);
  if (REIN !== join(ROOT, 'bin', 'rein.js')) console.log(`  measuring ${REIN}`);
  const w = await world('basic');
  const env = { ...baseEnv(w), REIN_HOME: w.reinHome };
  const problems: string[] = [];
  try {
    const bare = await repeat('bare node (node -e 0)', () =>
      measure(process.execPath, ['-e', '0'], { env, cwd: w.project }),
    );
    const version = await repeat('rein --version', () =>
      measure(process.execPath, [REIN, '--version'], { env, cwd: w.project }),
    );
    const help = await repeat('rein --help', () =>
      measure(process.execPath, [REIN, '--help'], { env, cwd: w.project }),
    );
    for (const r of [version, help]) problems.push(failed(r, (s) => s.code === 0) ?? '');
    console.log('');
    printRow(bare, bare);
    printRow(version, bare);
    printRow(help, bare);

    const claude = claudeCommand();
    console.log('');
    console.log(
      'claude' in claude || !('cmd' in claude)
        ? `  Claude Code: not run (${(claude as { why: string }).why})`
        : `  Claude Code ${claude.version}: ${claude.cmd}`,
    );

    const one = await session('one', () => ONE_REQUEST, claude);
    const twenty = await session('twenty', twentyCalls, claude);
    one.rein.label = 'rein run, one request';
    twenty.rein.label = 'rein run, 20 tool calls / 17 requests';
    one.rein.note = one.tally.rein;
    twenty.rein.note = twenty.tally.rein;
    problems.push(failed(one.rein, (s) => s.code === 0) ?? '', failed(twenty.rein, (s) => s.code === 0) ?? '');
    printRow(one.rein, bare);
    if (one.claude) {
      one.claude.label = 'claude -p, one request';
      one.claude.note = one.tally.claude;
      printRow(one.claude, bare);
      problems.push(failed(one.claude, (s) => s.code === 0) ?? '');
    }
    printRow(twenty.rein, bare);
    if (twenty.claude) {
      twenty.claude.label = 'claude -p, 20 tool calls';
      twenty.claude.note = twenty.tally.claude;
      printRow(twenty.claude, bare);
      problems.push(failed(twenty.claude, (s) => s.code === 0) ?? '');
    }

    console.log('');
    const daemon = await daemonRows('rein daemon', (dw) => ({
      cmd: process.execPath,
      args: [REIN, 'daemon', '--port', '0'],
      env: { ...baseEnv(dw), REIN_HOME: dw.reinHome },
    }));
    console.log(daemon.split('|')[0]);
    let mainOut: string | undefined;
    let headlessIdle = NaN;
    try {
      mainOut = await buildMain();
      const entry = join(mainOut, 'main', 'index.js');
      const headless = await daemonRows('main process, --headless (launchd daemon)', (dw) => ({
        cmd: process.execPath,
        args: [entry, '--headless'],
        env: { ...baseEnv(dw), REIN_HOME: dw.reinHome },
      }));
      headlessIdle = Number(headless.split('|')[1]);
      console.log(headless.split('|')[0]);
      const cli = await repeat('main process, --headless schedule list', () =>
        measure(process.execPath, [entry, '--headless', 'schedule', 'list'], { env, cwd: w.project }),
      );
      problems.push(failed(cli, (s) => s.code === 0) ?? '');
      printRow(cli, bare);
    } catch (e) {
      console.log(`  main process: not measured (${e instanceof Error ? e.message : String(e)})`);
    } finally {
      if (mainOut) rmSync(mainOut, { recursive: true, force: true });
    }

    // ---- targets (ratios, side by side in this one run) ----
    const bareCpu = med(bare, 'cpuMs');
    const ccOne = one.claude ? med(one.claude, 'cpuMs') : RECORDED_CLAUDE_ONE_REQUEST_CPU_MS;
    const ccOneLabel = one.claude ? "Claude Code's" : "Claude Code's RECORDED figure (issue 18: 1.47 s; not run here)";
    const oneRatio = med(one.rein, 'cpuMs') / ccOne;
    console.log('');
    console.log('targets');
    const versionRatio = med(version, 'cpuMs') / bareCpu;
    console.log(`  rein --version ≤ 2× bare node CPU: ${fmt(versionRatio, 2)}× — ${verdict(versionRatio <= 2)}`);
    console.log(`  one-request run ≤ 0.25× ${ccOneLabel} CPU: ${fmt(oneRatio, 2)}× — ${verdict(oneRatio <= 0.25)}`);
    if (twenty.claude) {
      const ratio = med(twenty.rein, 'cpuMs') / med(twenty.claude, 'cpuMs');
      console.log(`  20-call run ≤ 0.5× Claude Code's CPU: ${fmt(ratio, 2)}× — ${verdict(ratio <= 0.5)}`);
    } else
      console.log(
        "  20-call run ≤ 0.5× Claude Code's CPU: not measured (no Claude Code here, and no recorded figure for it)",
      );
    const rss20 = med(twenty.rein, 'rssMb');
    console.log(`  20-call run ≤ 120 MB peak RSS: ${fmt(rss20, 0)} MB — ${verdict(rss20 <= 120)}`);
    const idle = Number(daemon.split('|')[1]);
    console.log(
      `  idle daemon ≤ 80 MB RSS: rein daemon ${fmt(idle, 0)} MB — ${verdict(idle <= 80)}${Number.isFinite(headlessIdle) ? `; headless main process ${fmt(headlessIdle, 0)} MB — ${verdict(headlessIdle <= 80)}` : ''}`,
    );
    const real = problems.filter(Boolean);
    if (real.length > 0) {
      console.log('');
      for (const p of real) console.log(`  problem: ${p}`);
    }
  } finally {
    rmSync(w.root, { recursive: true, force: true });
  }
}
