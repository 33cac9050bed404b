/**
 * The accessibility bridge under Xvfb (Linux helper, AT-SPI): helper start, a snapshot of
 * gtk3-widget-factory (~260 accessible nodes; target ≤ 300 ms), find through Collection.GetMatches, a
 * click by ref that toggles a checkbox and waits for its effect (target p50 ≤ 20 ms), set_value, and an
 * annotated screenshot. Measured at the client, over the helper's Unix socket: what a tool call costs.
 * Figures are printed, never asserted.
 */
import { performance } from 'node:perf_hooks';
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
  console.log(`  ${label.padEnd(38)} p50 ${fmt(median(xs)).padStart(7)} ms   p95 ${fmt(percentile(xs, 95)).padStart(7)} ms   (n=${xs.length})${target ? `   target ${target}` : ''}`);

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
    console.log(`  helper start (spawn, ready, hello)  ${fmt(startMs)} ms   (pid ${hello.helper.pid}, python ${String(hello.helper.python ?? '?')})`);
    await desktop.waitForApp(client, factory.pid);
    const driver = new AxDriver(client, new RefTable());
    const app = String(factory.pid);

    const [cold, coldMs] = await timed(() => client.call('snapshot', { pid: factory.pid }));
    console.log(`  snapshot, first (cold)              ${fmt(coldMs)} ms   ${cold.visited} nodes visited, ${cold.elements.length} reported, helper ${fmt(cold.took_ms ?? 0)} ms`);
    line('snapshot widget-factory (all)', await samples(15, () => driver.snapshot({ app })), '≤ 300 ms');
    line('snapshot incl. hidden (every node)', await samples(15, () => driver.snapshot({ app, includeHidden: true })), '≤ 300 ms');
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
    const entry = snap.elements.find((e) => e.role === 'textfield' && !(e.states ?? []).some((s) => s === 'disabled' || s === 'readonly'))!;
    line('set_value on an entry', await samples(30, (i) => driver.act('set_value', { ref: entry.ref, value: `value ${i}` })));
    line('get_value', await samples(30, () => driver.act('get_value', { ref: entry.ref })));
    line('annotate (interactive, full screen)', await samples(5, () => driver.annotate({ app })));
    line('ping (round trip)', await samples(50, () => client.call('ping', {})));
  } finally {
    await desktop.close();
  }
}
