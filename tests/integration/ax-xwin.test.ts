// The Linux helper's view of the X server (native/ax_server/linux/rein_ax/xwin.py): which app's window is
// on top at a point, which app holds the keyboard focus, which X window is an app's — the checks that keep
// a mouse click or a key from landing in another app (issue 27). Two fixture apps overlap on an Xvfb
// with no window manager, where the stacking order is the X server's own. The answers are checked against
// what the test itself did to the X server (xdotool), and the helper's no-X fallback is checked with a
// helper started without DISPLAY: the clicks it refuses and allows are read back from the apps' own state.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AXClient } from '../../src-main/core/ax/axClient.js';
import {
  desktopParts,
  inCi,
  skipReason,
  startDesktop,
  type Desktop,
  type FixtureApp,
} from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const PROBE = join(__dirname, '../fixtures/ax/xwin_probe.py');
const missing = desktopParts();
if (!existsSync('/usr/bin/xdotool')) missing.push('xdotool');

describe.runIf(missing.length > 0 && inCi)('the Linux helper’s X server view', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the X window tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

interface Probe {
  available: boolean;
  windows: Array<{ xid: number; pid: number; name: string; bounds: number[] }> | null;
  topmost: Array<{ xid: number; pid: number; name: string } | Record<string, never> | null>;
  focus_pid: number | null;
  window_for: Array<number | null>;
}

const title = 'the Linux helper’s X server view';
describe.skipIf(missing.length > 0)(missing.length ? `${title} (${skipReason(missing)}; and xdotool)` : title, () => {
  useLeakCheck();
  let desktop: Desktop;
  let a: FixtureApp;
  let b: FixtureApp;

  const probe = (ask: object = {}, env: NodeJS.ProcessEnv = desktop.env): Probe =>
    JSON.parse(execFileSync('/usr/bin/python3', [PROBE, JSON.stringify(ask)], { env, encoding: 'utf8' })) as Probe;
  const xdo = (...args: string[]) =>
    execFileSync('/usr/bin/xdotool', args, { env: desktop.env, encoding: 'utf8' }).trim();
  const xidOf = (pid: number) =>
    Number(xdo('search', '--onlyvisible', '--pid', String(pid)).split('\n').filter(Boolean).pop());

  beforeAll(async () => {
    desktop = await startDesktop();
    const client = desktop.client();
    a = await desktop.startFixture(['--rows', '5', '--title', 'Fixture A']);
    await desktop.waitForApp(client, a.pid);
    b = await desktop.startFixture(['--rows', '5', '--title', 'Fixture B']);
    await desktop.waitForApp(client, b.pid);
    await client.disposeAsync();
    // A at the top left (760×640); B over its right half.
    await a.command('move-window 0 0');
    await b.command('move-window 400 0');
  }, 60_000);

  afterAll(async () => {
    await desktop?.close();
  });

  it('finds each app’s X window by pid and title', () => {
    const got = probe({
      window_for: [
        [a.pid, 'Fixture A'],
        [b.pid, 'Fixture B'],
        [a.pid, 'Fixture B'],
        [1, 'nobody'],
      ],
    });
    expect(got.available).toBe(true);
    expect(got.window_for).toEqual([xidOf(a.pid), xidOf(b.pid), xidOf(a.pid), null]);
    expect(got.windows!.map((w) => w.pid)).toEqual(expect.arrayContaining([a.pid, b.pid]));
  });

  it('names the window on top at a point, across apps, and follows a raise', () => {
    const overlap = [500, 300];
    const onlyA = [100, 300];
    const outside = [1200, 1000];
    xdo('windowraise', String(xidOf(b.pid)));
    let got = probe({ points: [overlap, onlyA, outside] });
    expect(got.topmost[0]).toMatchObject({ pid: b.pid, name: 'Fixture B' });
    expect(got.topmost[1]).toMatchObject({ pid: a.pid, name: 'Fixture A' });
    expect(got.topmost[2]).toEqual({});
    xdo('windowraise', String(xidOf(a.pid)));
    got = probe({ points: [overlap, onlyA] });
    expect(got.topmost[0]).toMatchObject({ pid: a.pid, xid: xidOf(a.pid) });
    expect(got.topmost[1]).toMatchObject({ pid: a.pid });
  });

  it('names the app that holds the keyboard focus', () => {
    xdo('windowfocus', '--sync', String(xidOf(b.pid)));
    expect(probe().focus_pid).toBe(b.pid);
    xdo('windowfocus', '--sync', String(xidOf(a.pid)));
    expect(probe().focus_pid).toBe(a.pid);
  });

  it('answers nothing without an X display, so callers refuse what they cannot check', () => {
    const env = { ...desktop.env };
    delete env.DISPLAY;
    expect(probe({ points: [[500, 300]], window_for: [[a.pid, 'Fixture A']] }, env)).toEqual({
      available: false,
      windows: null,
      topmost: [null],
      focus_pid: null,
      window_for: [null],
    });
  });

  it('without an X server, refuses a mouse click where another app’s window may cover the point, and makes the one no window covers', async () => {
    const env = { ...desktop.env };
    delete env.DISPLAY;
    const blind = new AXClient({ idleMs: 0 }, { env, platform: 'linux' });
    try {
      const count = async (app: FixtureApp) => {
        const [el] = (await blind.call('find', { pid: app.pid, role: 'button', name: 'Count', exact: true })).elements;
        return {
          id: el!.id,
          role: el!.role,
          name: el!.name,
          app: { pid: app.pid, name: 'fixture_app.py' },
          ancestry: el!.ancestry ?? [],
        };
      };
      // B over A's Count button (a double click goes by the mouse).
      await b.command('move-window 0 0');
      xdo('windowraise', String(xidOf(b.pid)));
      await expect(blind.call('click', { target: await count(a), count: 2 })).rejects.toMatchObject({
        code: 'NOT_VISIBLE',
        message: expect.stringMatching(/order of windows is unknown/),
      });
      expect((await a.state()).count).toBe(0);
      expect((await b.state()).count).toBe(0);
      // B moved away: nothing else contains the point, so the double click is made and counts twice.
      await b.command('move-window 400 0');
      const out = await blind.call('click', { target: await count(a), count: 2 });
      expect(out).toMatchObject({ method: 'mouse' });
      await expect.poll(async () => (await a.state()).count, { timeout: 5_000 }).toBe(2);
      expect((await b.state()).count).toBe(0);
    } finally {
      await blind.disposeAsync();
    }
  });
});
