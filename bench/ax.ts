/**
 * The accessibility bridge under Xvfb (Linux helper, AT-SPI): helper start, a snapshot of
 * gtk3-widget-factory (~260 accessible nodes; target ≤ 300 ms), find through Collection.GetMatches, a
 * click by ref that toggles a checkbox and waits for its effect (target p50 ≤ 20 ms), set_value, and an
 * annotated screenshot. Measured at the client, over the helper's Unix socket: what a tool call costs.
 * Then the CLI path: whole `rein ax` commands (a Node start, the command, its exit), cold (REIN_AX_WARM=0:
 * a helper started per command) and warm (the shared helper, core/ax/warmHelper.ts; target: a click by
 * ref p50 ≤ 150 ms). Figures are printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { AxDriver } from '../src-main/core/ax/axDriver.js';
import { RefTable } from '../src-main/core/ax/refs.js';
import { desktopParts, startDesktop } from '../tests/fixtures/ax/desktopSession.js';
import { fmt, median, percentile } from './support.js';

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

async function samples(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await timed(() => fn(i)))[1]);
  return out;
}

const line = (label: string, xs: number[], target?: string) =>
  console.log(
    `  ${label.padEnd(38)} p50 ${fmt(median(xs)).padStart(7)} ms   p95 ${fmt(percentile(xs, 95)).padStart(7)} ms   (n=${xs.length})${target ? `   target ${target}` : ''}`,
  );

export async function run(): Promise<void> {
  const missing = desktopParts({ widgetFactory: true });
  if (missing.length > 0) {
    console.log(`\nax benchmark skipped: needs ${missing.join(', ')} (see .ci/run)`);
    return;
  }
  console.log('\naccessibility bridge benchmark — Linux helper (python3 + pyatspi) under Xvfb, Unix socket');
  const desktop = await startDesktop();
  try {
    const factory = await desktop.startApp('/usr/bin/gtk3-widget-factory');
    const client = desktop.client();
    const [hello, startMs] = await timed(() => client.start());
    console.log(
      `  helper start (spawn, ready, hello)  ${fmt(startMs)} ms   (pid ${hello.helper.pid}, python ${String(hello.helper.python ?? '?')})`,
    );
    await desktop.waitForApp(client, factory.pid);
    const driver = new AxDriver(client, new RefTable());
    const app = String(factory.pid);

    const [cold, coldMs] = await timed(() => client.call('snapshot', { pid: factory.pid }));
    console.log(
      `  snapshot, first (cold)              ${fmt(coldMs)} ms   ${cold.visited} nodes visited, ${cold.elements.length} reported, helper ${fmt(cold.took_ms ?? 0)} ms`,
    );
    line('snapshot widget-factory (all)', await samples(15, () => driver.snapshot({ app })), '≤ 300 ms');
    line(
      'snapshot incl. hidden (every node)',
      await samples(15, () => driver.snapshot({ app, includeHidden: true })),
      '≤ 300 ms',
    );
    const every = await client.call('snapshot', { pid: factory.pid, include_hidden: true });
    console.log(`    (incl. hidden: ${every.visited} nodes visited, ${every.elements.length} reported)`);
    line('snapshot, filter interactive', await samples(15, () => driver.snapshot({ app, filter: 'interactive' })));

    line('find role=checkbox (GetMatches)', await samples(30, () => driver.find({ app, role: 'checkbox' })));
    line('find name="button" (substring)', await samples(30, () => driver.find({ app, name: 'button' })));

    const boxes = await driver.find({ app, role: 'checkbox' });
    const box = boxes.elements.find((e) => !(e.states ?? []).includes('disabled'))!;
    let observed = 0;
    const clicks = await samples(60, async () => {
      const out = await driver.act('click', { ref: box.ref });
      if (out.effect?.observed) observed++;
    });
    line('click checkbox by ref (+ its effect)', clicks, 'p50 ≤ 20 ms');
    console.log(`    effect observed on ${observed} of ${clicks.length} clicks`);

    const snap = await driver.snapshot({ app });
    const entry = snap.elements.find(
      (e) => e.role === 'textfield' && !(e.states ?? []).some((s) => s === 'disabled' || s === 'readonly'),
    )!;
    line(
      'set_value on an entry',
      await samples(30, (i) => driver.act('set_value', { ref: entry.ref, value: `value ${i}` })),
    );
    line('get_value', await samples(30, () => driver.act('get_value', { ref: entry.ref })));
    line('annotate (interactive, full screen)', await samples(5, () => driver.annotate({ app })));
    line('ping (round trip)', await samples(50, () => client.call('ping', {})));
    await cliPath(desktop.env, factory.pid);
  } finally {
    await desktop.close();
  }
}

const REIN_BIN = fileURLToPath(new URL('../bin/rein.js', import.meta.url));

function reinCommand(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [REIN_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** Whole commands, as a person or a script runs them: the built CLI (out/cli), cold and warm. */
async function cliPath(desktopEnv: NodeJS.ProcessEnv, pid: number): Promise<void> {
  if (!existsSync(fileURLToPath(new URL('../out/cli/rein.js', import.meta.url)))) {
    console.log('  CLI path skipped: the CLI is not built (npm run build:cli)');
    return;
  }
  const home = await mkdtemp(join(tmpdir(), 'rein-bench-ax-'));
  const base = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    REIN_HOME: home,
    DISPLAY: desktopEnv.DISPLAY,
    DBUS_SESSION_BUS_ADDRESS: desktopEnv.DBUS_SESSION_BUS_ADDRESS,
  };
  const cold = { ...base, REIN_AX_WARM: '0' };
  const warm = { ...base, REIN_AX_WARM: '1' };
  try {
    console.log('  CLI path: whole `rein ax` commands (node start + command + exit)');
    const snap = await reinCommand(['ax', 'find', '--app', String(pid), '--role', 'checkbox', '--json'], cold);
    const box = (JSON.parse(snap.stdout) as { elements: Array<{ ref: string; states?: string[] }> }).elements.find(
      (e) => !(e.states ?? []).includes('disabled'),
    );
    if (!box) throw new Error('no enabled checkbox found through the CLI');
    const check = (r: { code: number | null }) => {
      if (r.code !== 0) throw new Error(`rein ax exited with ${r.code}`);
    };
    line(
      'cli, cold: rein ax click REF',
      await samples(8, async () => check(await reinCommand(['ax', 'click', box.ref, '--json'], cold))),
      'was 255–815 ms',
    );
    line(
      'cli, cold: rein ax snapshot',
      await samples(5, async () => check(await reinCommand(['ax', 'snapshot', '--app', String(pid), '--json'], cold))),
    );
    const [, firstMs] = await timed(async () => check(await reinCommand(['ax', 'apps', '--json'], warm)));
    console.log(`  cli, warm helper start (first command)  ${fmt(firstMs)} ms`);
    line(
      'cli, warm: rein ax click REF',
      await samples(20, async () => check(await reinCommand(['ax', 'click', box.ref, '--json'], warm))),
      'p50 ≤ 150 ms',
    );
    line(
      'cli, warm: rein ax snapshot',
      await samples(10, async () => check(await reinCommand(['ax', 'snapshot', '--app', String(pid), '--json'], warm))),
    );
    line(
      'cli, warm: rein ax get-value REF',
      await samples(10, async () => check(await reinCommand(['ax', 'get-value', box.ref, '--json'], warm))),
    );
    line(
      'cli: rein ax --help (node start, no helper)',
      await samples(10, async () => check(await reinCommand(['ax', '--help'], base))),
    );
  } finally {
    await reinCommand(['ax', 'helper', 'stop'], warm);
    await rm(home, { recursive: true, force: true });
  }
}
