// Item 2 of the accessibility bridge against a real GTK3 app whose UI changes on command: a ref names the
// element the snapshot showed. Benign changes (siblings added or removed, the window moved or resized,
// the element recreated in place, a group wrapped around it) must not break it; semantic changes (another
// label or role, hidden, disabled, gone, duplicated, moved elsewhere, scrolled off-screen) must be refused
// with their code — and the app must show that nothing was done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { isAxError } from '../../src-main/core/ax/axError.js';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { RefTable, type SnapshotView } from '../../src-main/core/ax/refs.js';
import {
  desktopParts,
  inCi,
  skipReason,
  startDesktop,
  type Desktop,
  type FixtureApp,
} from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const missing = desktopParts();

describe.runIf(missing.length > 0 && inCi)('accessibility refs against a changing app', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

describe.skipIf(missing.length > 0)(
  missing.length
    ? `accessibility refs against a changing app (${skipReason(missing)})`
    : 'accessibility refs against a changing app',
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let client: AXClient;

    beforeAll(async () => {
      desktop = await startDesktop();
      client = desktop.client();
      // A first app brings up the accessibility bus and registry (D-Bus activation) before any test runs.
      const primer = await desktop.startFixture(['--rows', '5']);
      await desktop.waitForApp(client, primer.pid);
      await client.call('key', { keys: 'shift' }).catch(() => undefined);
      primer.child.kill('SIGTERM');
      await new Promise((r) => primer.child.once('exit', r));
    }, 60_000);

    afterAll(async () => {
      await desktop?.close();
    });

    /** A fresh fixture for one test, stopped at its end, with a snapshot of it. */
    async function withFixture(
      fn: (app: FixtureApp, driver: AxDriver, view: SnapshotView) => Promise<void>,
    ): Promise<void> {
      const app = await desktop.startFixture();
      try {
        await desktop.waitForApp(client, app.pid);
        const driver = new AxDriver(client, new RefTable());
        const view = await driver.snapshot({ app: String(app.pid) });
        await fn(app, driver, view);
      } finally {
        app.child.kill('SIGTERM');
        await new Promise((r) => (app.child.exitCode !== null ? r(null) : app.child.once('exit', r)));
      }
    }

    const refOf = (view: SnapshotView, name: string, role?: string) => {
      const el = view.elements.find((e) => e.name === name && (!role || e.role === role));
      if (!el) throw new Error(`no ${role ?? 'element'} "${name}" in the snapshot`);
      return el.ref;
    };

    const benign: Array<[string, string[], 'identity' | 'rematch']> = [
      ['a sibling inserted before it', ['insert-before save New'], 'identity'],
      ['a sibling before it removed', ['remove-spacer'], 'identity'],
      ['the window moved', ['move-window 240 160'], 'identity'],
      ['the window resized', ['resize-window 700 600'], 'identity'],
      ['another element relabelled', ['relabel-other'], 'identity'],
      ['the element recreated in place', ['recreate save'], 'rematch'],
      ['the element recreated inside a new group', ['recreate-in-group save'], 'rematch'],
      ['a sibling inserted, then the element recreated', ['insert-before save Extra', 'recreate save'], 'rematch'],
    ];

    for (const [what, commands, how] of benign) {
      it(`clicks Save after ${what}`, async () => {
        await withFixture(async (app, driver, view) => {
          const save = refOf(view, 'Save', 'button');
          for (const c of commands) await app.command(c);
          const out = await driver.act('click', { ref: save });
          expect(out.actedOn).toMatchObject({ role: 'button', name: 'Save', resolved_by: how });
          expect(out.actedOn?.bounds).toHaveLength(4);
          expect((await app.state()).saved).toBe(1);
          // The ref now names the element it acted on: a second click needs no re-match.
          expect((await driver.act('click', { ref: save })).actedOn?.resolved_by).toBe('identity');
          expect((await app.state()).saved).toBe(2);
        });
      });
    }

    it('reports the moved bounds of a window that moved', async () => {
      await withFixture(async (app, driver, view) => {
        const save = refOf(view, 'Save', 'button');
        const before = view.elements.find((e) => e.ref === save)!.bounds!;
        await app.command('move-window 200 100');
        const out = await driver.act('click', { ref: save });
        expect(out.actedOn!.bounds![0] - before[0]).toBe(200);
        expect(out.actedOn!.bounds![1] - before[1]).toBe(100);
      });
    });

    const semantic: Array<[string, string[], string]> = [
      ['renamed', ['rename save Save As'], 'STALE_REF'],
      ['hidden', ['hide save'], 'NOT_VISIBLE'],
      ['disabled', ['disable save'], 'DISABLED'],
      ['destroyed', ['destroy save'], 'STALE_REF'],
      ['replaced by two like it', ['duplicate save'], 'AMBIGUOUS'],
      ['recreated as a checkbox', ['recreate-as-checkbox save'], 'STALE_REF'],
      ['moved to another group', ['move-to-danger save'], 'STALE_REF'],
    ];

    for (const [what, commands, code] of semantic) {
      it(`refuses Save once it was ${what} (${code}) and does nothing`, async () => {
        await withFixture(async (app, driver, view) => {
          const save = refOf(view, 'Save', 'button');
          for (const c of commands) await app.command(c);
          const err = await driver.act('click', { ref: save }).catch((e: unknown) => e);
          expect(isAxError(err), String(err)).toBe(true);
          expect(err).toMatchObject({ code });
          expect((err as { hint?: string }).hint).toMatch(/snapshot|visible|enabled/);
          const state = await app.state();
          expect(state.saved).toBe(0);
        });
      });
    }

    it('refuses a row scrolled out of view (NOT_VISIBLE) and clicks it once scrolled back with into_view', async () => {
      await withFixture(async (app, driver, view) => {
        const row = refOf(view, 'Row 002', 'row');
        await app.command('scroll-list-bottom');
        await expect(driver.act('click', { ref: row })).rejects.toMatchObject({ code: 'NOT_VISIBLE' });
        const scrolled = await driver.act('scroll', { ref: row, intoView: true });
        expect(scrolled.result.in_view).toBe(true);
        const out = await driver.act('click', { ref: row });
        expect(out.actedOn).toMatchObject({ role: 'row', name: 'Row 002' });
      });
    });

    it('refuses a disabled element that was disabled all along, and the ref of an element that came back works', async () => {
      await withFixture(async (app, driver, view) => {
        await expect(driver.act('click', { ref: refOf(view, 'Locked', 'button') })).rejects.toMatchObject({
          code: 'DISABLED',
        });
        const save = refOf(view, 'Save', 'button');
        await app.command('hide save');
        await expect(driver.act('click', { ref: save })).rejects.toMatchObject({ code: 'NOT_VISIBLE' });
        await app.command('show save');
        await driver.act('click', { ref: save });
        expect((await app.state()).saved).toBe(1);
      });
    });

    it('says APP_GONE for a ref of an app that quit, and never acts on its restarted twin', async () => {
      const first = await desktop.startFixture();
      let second: FixtureApp | undefined;
      try {
        await desktop.waitForApp(client, first.pid);
        const driver = new AxDriver(client, new RefTable());
        const view = await driver.snapshot({ app: String(first.pid) });
        const save = refOf(view, 'Save', 'button');
        first.child.kill('SIGTERM');
        await new Promise((r) => first.child.once('exit', r));
        second = await desktop.startFixture();
        await desktop.waitForApp(client, second.pid);
        await expect(driver.act('click', { ref: save })).rejects.toMatchObject({ code: 'APP_GONE' });
        expect((await second.state()).saved).toBe(0);
      } finally {
        for (const a of [first, second]) {
          if (a && a.child.exitCode === null && a.child.signalCode === null) {
            a.child.kill('SIGTERM');
            await new Promise((r) => a.child.once('exit', r));
          }
        }
      }
    });
  },
);
