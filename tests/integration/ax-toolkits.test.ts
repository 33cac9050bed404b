// The Linux helper beyond GTK 3: a Qt 5 window (tests/fixtures/ax/qt_fixture.py, PyQt5) and a GTK 4 app
// (gnome-calculator, GTK 4.8). Each toolkit has its quirks (../shared/reference/atspi-facts.md): Qt
// registers only when the desktop's accessibility switch was on as the bus launcher started, and
// merges clicks less than 100 ms apart; GTK 4.8 leaves `showing` off everything below the window, names buttons twice ("4 4") and
// unnamed widgets after their class, and its effects come 0.3–0.5 s after the action.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { RefTable } from '../../src-main/core/ax/refs.js';
import { desktopParts, inCi, skipReason, startDesktop, type Desktop } from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const QT_FIXTURE = join(__dirname, '../fixtures/ax/qt_fixture.py');
const missing = desktopParts();
if (!existsSync('/usr/lib/python3/dist-packages/PyQt5')) missing.push('python3-pyqt5');
if (!existsSync('/usr/bin/gnome-calculator')) missing.push('gnome-calculator');
if (!existsSync('/usr/share/glib-2.0/schemas/org.gnome.desktop.interface.gschema.xml'))
  missing.push('gsettings-desktop-schemas');

describe.runIf(missing.length > 0 && inCi)('the Linux helper with Qt 5 and GTK 4', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the toolkit tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

const title = 'the Linux helper with Qt 5 and GTK 4';
describe.skipIf(missing.length > 0)(
  missing.length ? `${title} (${skipReason(missing)}; and python3-pyqt5 gnome-calculator)` : title,
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let client: AXClient;
    let driver: AxDriver;

    beforeAll(async () => {
      desktop = await startDesktop();
      client = desktop.client();
      driver = new AxDriver(client, new RefTable());
    }, 60_000);

    afterAll(async () => {
      await desktop?.close();
    });

    describe('Qt 5', () => {
      let pid: number;
      const said: string[] = [];
      const heard = async (line: string) => {
        for (let i = 0; i < 400 && !said.includes(line); i++) await new Promise((r) => setTimeout(r, 10));
        return said.includes(line);
      };

      beforeAll(async () => {
        // The desktop's switch is on from the bus launcher's start (startDesktop): Qt 5 registers then,
        // and never when the switch is flipped at run time.
        const app = await desktop.startApp('/usr/bin/python3', [QT_FIXTURE]);
        pid = app.pid;
        let buf = '';
        app.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
          buf += d;
          const lines = buf.split('\n');
          buf = lines.pop()!;
          said.push(...lines);
        });
        // A Qt start on a loaded machine (PyQt's import alone) can take longer than the default wait.
        await desktop.waitForApp(client, pid, 50_000);
      }, 60_000);

      it('is on the bus with its window and widgets, roles and names as for GTK', async () => {
        const view = await driver.snapshot({ app: String(pid) });
        expect(view.app.toolkit).toMatch(/^Qt 5/);
        const by = (role: string, name: string) => view.elements.find((e) => e.role === role && e.name === name);
        expect(view.elements[0]).toMatchObject({ role: 'window', name: 'Qt Fixture' });
        for (const [role, name] of [
          ['button', 'Count'],
          ['checkbox', 'Enable'],
          ['textfield', 'Note'],
          ['text', 'count: 0'],
        ])
          expect(by(role!, name!), `${role} ${name}`).toBeDefined();
      });

      it('clicks by ref, three times in a row without losing one (Qt merges clicks under 100 ms apart)', async () => {
        const [count] = (await driver.find({ app: String(pid), role: 'button', name: 'Count' })).elements;
        for (let i = 0; i < 3; i++) await driver.act('click', { ref: count!.ref });
        expect(await heard('count 3')).toBe(true);
        expect(said.filter((l) => l.startsWith('count '))).toEqual(['count 1', 'count 2', 'count 3']);
        const label = await driver.waitFor({
          app: String(pid),
          condition: 'exists',
          role: 'text',
          name: 'count: 3',
          timeoutMs: 5_000,
        });
        expect(label.met).toBe(true);
      });

      it('toggles the check box and sets the line edit, reading both back', async () => {
        const [box] = (await driver.find({ app: String(pid), role: 'checkbox', name: 'Enable' })).elements;
        await driver.act('click', { ref: box!.ref });
        expect(await heard('checked true')).toBe(true);
        expect((await driver.act('get_value', { ref: box!.ref })).result.value).toBe('true');
        const [note] = (await driver.find({ app: String(pid), role: 'textfield', name: 'Note' })).elements;
        await driver.act('set_value', { ref: note!.ref, value: 'hello qt' });
        expect(await heard('text hello qt')).toBe(true);
        expect((await driver.act('get_value', { ref: note!.ref })).result.value).toBe('hello qt');
      });
    });

    describe('GTK 4 (gnome-calculator)', () => {
      let pid: number;
      let display: string;
      const button = async (name: string) => {
        const found = (await driver.find({ app: String(pid), role: 'button', name, exact: true })).elements;
        expect(found, `button ${name}`).toHaveLength(1);
        return found[0]!.ref;
      };
      const shown = async () => String((await driver.act('get_value', { ref: display })).result.value ?? '');

      beforeAll(async () => {
        pid = (await desktop.startApp('/usr/bin/gnome-calculator')).pid;
        await desktop.waitForApp(client, pid, 30_000);
      }, 60_000);

      it('sees the widgets below the window (GTK 4.8 marks only the window `showing`), each named once', async () => {
        const view = await driver.snapshot({ app: String(pid) });
        expect(view.app.toolkit).toMatch(/^GTK 4/);
        const names = view.elements.filter((e) => e.role === 'button').map((e) => e.name);
        for (const n of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '=', '×'])
          expect(names, n).toContain(n);
        expect(names.some((n) => /^(\S+) \1$/.test(n))).toBe(false); // not "4 4"
        expect(view.elements.some((e) => /^(Gtk|Adw)[A-Z]/.test(e.name))).toBe(false); // not "GtkMenuButton"
        expect(view.elements.filter((e) => e.bounds).length).toBeGreaterThan(20);
        const input = view.elements.find((e) => e.role === 'textarea' || e.role === 'textfield');
        expect(input).toBeDefined();
        display = input!.ref;
      });

      it('clicks 12 × 12 = by refs and reads 144 (each click waits for its effect; none is dropped)', async () => {
        for (const key of ['1', '2', '×', '1', '2', '=']) await driver.act('click', { ref: await button(key) });
        await expect.poll(shown, { timeout: 5_000 }).toBe('144');
      });

      it('sets the expression as text and computes it', async () => {
        await driver.act('set_value', { ref: display, value: '100/4' });
        await driver.act('click', { ref: await button('=') });
        await expect.poll(shown, { timeout: 5_000 }).toBe('25');
      });
    });
  },
);
