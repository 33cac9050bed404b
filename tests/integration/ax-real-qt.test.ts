// The Linux helper on a Qt 5 app it was never tuned to, FeatherPad (issue 27): items of a closed menu
// (Qt gives some of them no states at all, and GTK 4's "no states says nothing" rule must not apply to
// Qt) are refused rather than "clicked", and text typed by ref lands whole, read back by plain pyatspi
// (fixtures/ax/read_app.py), never by the helper's own answer.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { RefTable } from '../../src-main/core/ax/refs.js';
import { desktopParts, inCi, skipReason, startDesktop, type Desktop } from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const READ_APP = join(__dirname, '../fixtures/ax/read_app.py');
const missing = desktopParts();
if (!existsSync('/usr/bin/featherpad')) missing.push('featherpad');
if (!existsSync('/usr/share/glib-2.0/schemas/org.gnome.desktop.interface.gschema.xml'))
  missing.push('gsettings-desktop-schemas');

describe.runIf(missing.length > 0 && inCi)('the Linux helper on FeatherPad (Qt 5)', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the Qt real-app tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

const title = 'the Linux helper on FeatherPad (Qt 5)';
describe.skipIf(missing.length > 0)(
  missing.length ? `${title} (${skipReason(missing)}; and featherpad)` : title,
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let client: AXClient;
    let driver: AxDriver;
    let pid: number;
    let home: string;

    const texts = () =>
      (
        JSON.parse(
          execFileSync('/usr/bin/python3', [READ_APP, String(pid)], { env: desktop.env, encoding: 'utf8' }),
        ) as { nodes: Array<{ role: string; text?: string; states: string[] }> }
      ).nodes
        .filter((n) => n.states.includes('editable') && n.states.includes('multi-line'))
        .map((n) => n.text ?? '');

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'rein-ax-qt-'));
      desktop = await startDesktop();
      desktop.env.HOME = home;
      client = desktop.client();
      driver = new AxDriver(client, new RefTable());
      pid = (await desktop.startApp('/usr/bin/featherpad')).pid;
      await desktop.waitForApp(client, pid, 50_000);
    }, 90_000);

    afterAll(async () => {
      await desktop?.close();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('refuses the items of a closed menu instead of clicking them, and a disabled tool button', async () => {
      // The helper's find, asked for hidden elements too (the driver's find never asks for them).
      const found = await client.call('find', { pid, role: 'menuitem', include_hidden: true, max_results: 200 });
      const closed = found.elements.filter((e) => e.ancestry?.some((a) => a.role === 'menu' || a.role === 'menuitem'));
      expect(closed.length).toBeGreaterThan(5);
      for (const item of closed.slice(0, 5)) {
        const target = {
          id: item.id,
          role: item.role,
          name: item.name,
          app: { pid, name: found.app.name },
          ancestry: item.ancestry ?? [],
        };
        await expect(client.call('click', { target }), item.name).rejects.toMatchObject({
          code: expect.stringMatching(/^(NOT_VISIBLE|DISABLED)$/),
        });
      }
      const view = await driver.snapshot({ app: String(pid), filter: 'interactive' });
      // What a person sees: the menu bar's titles, none of the closed menus' items.
      expect(view.elements.filter((e) => e.role === 'menuitem' && closed.some((c) => c.id === e.id))).toEqual([]);
      const save = view.elements.find((e) => e.role === 'button' && e.name === 'Save')!;
      expect(save.states).toContain('disabled');
      await expect(driver.act('click', { ref: save.ref })).rejects.toMatchObject({ code: 'DISABLED' });
    });

    it('types Unicode into the editor by ref (UTF-16 lengths for Qt) and reads every character back', async () => {
      const view = await driver.snapshot({ app: String(pid), filter: 'interactive' });
      const area = view.elements.find((e) => e.role === 'textarea')!;
      const out = await driver.act('type_text', { ref: area.ref, text: 'Qt ÄÖ 日本 🙂' });
      expect(out.result).toMatchObject({ verified: true });
      expect(texts().join('')).toContain('Qt ÄÖ 日本 🙂');
    });
  },
);
