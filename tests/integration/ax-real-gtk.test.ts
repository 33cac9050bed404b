// The Linux helper on GTK apps nobody tuned it to (issue 27): gnome-calculator and gnome-text-editor
// (GTK 4.8), Mousepad, zenity and Thunar (GTK 3). Every effect is read back by something other than the
// helper: zenity's own stdout, the X server (xdotool), or a separate pyatspi read (fixtures/ax/read_app.py).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { RefTable } from '../../src-main/core/ax/refs.js';
import { desktopParts, inCi, skipReason, startDesktop, type Desktop } from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const READ_APP = join(__dirname, '../fixtures/ax/read_app.py');
const APPS = ['gnome-calculator', 'gnome-text-editor', 'mousepad', 'zenity', 'thunar', 'xdotool'];
const missing = desktopParts();
for (const a of APPS) if (!existsSync(`/usr/bin/${a}`)) missing.push(a);

describe.runIf(missing.length > 0 && inCi)('the Linux helper on real GTK apps', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the real-app tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

interface ReadNode {
  role: string;
  name: string;
  text?: string;
  states: string[];
}

const title = 'the Linux helper on real GTK apps';
describe.skipIf(missing.length > 0)(
  missing.length ? `${title} (${skipReason(missing)}; and ${APPS.join(' ')})` : title,
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let client: AXClient;
    let driver: AxDriver;
    let home: string;
    const pids: Record<string, number> = {};
    let zenityOut = '';
    let zenityExit: Promise<number | null>;

    /** The app's tree as plain pyatspi sees it: no code of the helper. */
    const readApp = (pid: number): ReadNode[] =>
      (
        JSON.parse(
          execFileSync('/usr/bin/python3', [READ_APP, String(pid)], { env: desktop.env, encoding: 'utf8' }),
        ) as { nodes: ReadNode[] }
      ).nodes;
    const xdo = (...args: string[]) =>
      execFileSync('/usr/bin/xdotool', args, { env: desktop.env, encoding: 'utf8' }).trim();
    const windowOf = (pid: number) =>
      xdo('search', '--onlyvisible', '--pid', String(pid)).split('\n').filter(Boolean).pop()!;
    const editorText = (pid: number, role = 'text') =>
      readApp(pid)
        .filter((n) => n.role === role && n.states.includes('editable'))
        .map((n) => n.text ?? '');

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'rein-ax-real-'));
      mkdirSync(join(home, 'files'));
      writeFileSync(join(home, 'files', 'alpha.txt'), 'a');
      writeFileSync(join(home, 'files', 'beta.txt'), 'bb');
      desktop = await startDesktop();
      desktop.env.HOME = home;
      desktop.env.XDG_DATA_HOME = join(home, 'data');
      desktop.env.XDG_CACHE_HOME = join(home, 'cache');
      client = desktop.client();
      driver = new AxDriver(client, new RefTable());
      for (const [name, args] of [
        ['gnome-calculator', []],
        ['gnome-text-editor', ['--standalone']],
        ['mousepad', ['--disable-server']],
        ['thunar', [join(home, 'files')]],
      ] as const) {
        pids[name] = (await desktop.startApp(`/usr/bin/${name}`, [...args])).pid;
      }
      const zen = await desktop.startApp('/usr/bin/zenity', [
        '--forms',
        '--title=Order',
        '--add-entry=Name',
        '--add-password=Secret',
        '--add-combo=Size',
        '--combo-values=Small|Medium|Large',
      ]);
      pids.zenity = zen.pid;
      zen.child.stdout!.setEncoding('utf8').on('data', (d: string) => (zenityOut += d));
      zenityExit = new Promise((r) => zen.child.once('exit', (code) => r(code)));
      for (const pid of Object.values(pids)) await desktop.waitForApp(client, pid, 40_000);
    }, 120_000);

    afterAll(async () => {
      await desktop?.close();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('snapshots a GTK 4 app by name from a fresh helper, before anything asked its app root (toolkit from the application object)', async () => {
      // A fresh helper: nothing has listed the apps in it, so the first element it meets is a window.
      const freshClient = desktop.client();
      const fresh = new AxDriver(freshClient, new RefTable());
      const view = await fresh.snapshot({ app: 'gnome-calculator' });
      expect(view.elements.length).toBeGreaterThan(20);
      const seven = view.elements.filter((e) => e.role === 'button' && e.name === '7');
      expect(seven).toHaveLength(1);
      const out = await fresh.act('click', { ref: seven[0]!.ref });
      expect(out.actedOn).toMatchObject({ role: 'button', name: '7' });
      // Read back by plain pyatspi: the calculator's editable display shows 7.
      await expect
        .poll(() => readApp(pids['gnome-calculator']!).some((n) => (n.text ?? '').trim() === '7'), { timeout: 5_000 })
        .toBe(true);
      expect(
        (await fresh.find({ app: 'gnome-calculator', role: 'button', name: '7', exact: true })).elements,
      ).toHaveLength(1);
      await freshClient.disposeAsync();
    });

    it('reports GTK 4 bounds on the screen (GTK 4.8 gives them relative to the window) and sees the editor inside the GtkStack page', async () => {
      const pid = pids['gnome-text-editor']!;
      const win = windowOf(pid);
      xdo('windowmove', win, '300', '200');
      await expect.poll(() => xdo('getwindowgeometry', win), { timeout: 5_000 }).toMatch(/Position: 300,200/);
      const view = await driver.snapshot({ app: String(pid) });
      const editor = view.elements.find((e) => e.role === 'textarea');
      expect(editor, 'the text view below the GtkStackPage').toBeDefined();
      const frame = view.elements.find((e) => e.role === 'window')!;
      // The X server's geometry of the window (client-side decorations add an even margin).
      const geo = xdo('getwindowgeometry', win)
        .match(/Position: (\d+),(\d+)[\s\S]*Geometry: (\d+)x(\d+)/)!
        .slice(1)
        .map(Number);
      const [x, y, w, h] = frame.bounds!;
      expect(x).toBeGreaterThanOrEqual(geo[0]!);
      expect(y).toBeGreaterThanOrEqual(geo[1]!);
      expect(x + w).toBeLessThanOrEqual(geo[0]! + geo[2]!);
      expect(y + h).toBeLessThanOrEqual(geo[1]! + geo[3]!);
      expect(editor!.bounds![1]).toBeGreaterThan(y);
    });

    it('refuses a mouse click on a GTK 4 label covered by another app’s window, and clicks nothing', async () => {
      const editorPid = pids['gnome-text-editor']!;
      const padPid = pids.mousepad!;
      xdo('windowmove', windowOf(editorPid), '300', '200');
      const label = (await driver.find({ app: String(editorPid), role: 'text', name: 'New Document', exact: true }))
        .elements[0]!;
      const [lx, ly] = label.bounds!;
      const pad = windowOf(padPid);
      xdo('windowmove', pad, String(lx - 50), String(ly - 50));
      xdo('windowraise', pad);
      const before = editorText(padPid);
      await expect(driver.act('click', { ref: label.ref })).rejects.toMatchObject({
        code: 'NOT_VISIBLE',
        message: expect.stringMatching(/another app/),
      });
      expect(editorText(padPid)).toEqual(before);
      xdo('windowmove', pad, '0', '600');
    });

    it('types into the app it names, focusing it first, even while another app holds the keyboard focus', async () => {
      const editorPid = pids['gnome-text-editor']!;
      const padPid = pids.mousepad!;
      xdo('windowfocus', '--sync', windowOf(padPid));
      const padBefore = editorText(padPid);
      const out = await driver.act('type_text', { app: String(editorPid), text: 'abc' });
      expect(out.result).toMatchObject({ method: 'keys', verified: true, app: { pid: editorPid } });
      expect(editorText(editorPid).join('')).toContain('abc');
      expect(editorText(padPid)).toEqual(padBefore);
    });

    it('types full Unicode by ref (byte lengths for AT-SPI) and reads back every character', async () => {
      const padPid = pids.mousepad!;
      const [area] = (await driver.find({ app: String(padPid), role: 'textarea' })).elements;
      await driver.act('set_value', { ref: area!.ref, value: 'start' });
      const out = await driver.act('type_text', { ref: area!.ref, text: ' + typed ÄÖ 日本 🙂' });
      expect(out.result).toMatchObject({ verified: true });
      expect(editorText(padPid)).toContain('start + typed ÄÖ 日本 🙂');
    });

    it('fills a zenity form: text, password (checked by its length) and a combo chosen on the combo, not its popup menu', async () => {
      const pid = pids.zenity!;
      const view = await driver.snapshot({ app: String(pid), filter: 'interactive' });
      const fields = view.elements.filter((e) => e.role === 'textfield');
      const secret = fields.find((e) => e.secure);
      const name = fields.find((e) => !e.secure);
      const combo = view.elements.find((e) => e.role === 'combobox');
      expect(name && secret && combo).toBeTruthy();
      await driver.act('set_value', { ref: name!.ref, value: 'Zoë 日本' });
      const pw = await driver.act('set_value', { ref: secret!.ref, value: 'hunter2' });
      expect(pw.result).toMatchObject({ verified: true, value: null, secure: true });
      const chosen = await driver.act('set_value', { ref: combo!.ref, value: 'Large' });
      expect(chosen.result).toMatchObject({ verified: true, value: 'Large' });
      expect((await driver.act('get_value', { ref: combo!.ref })).result.value).toBe('Large');
      await expect(driver.act('set_value', { ref: combo!.ref, value: 'Huge' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      const ok = view.elements.find((e) => e.role === 'button' && e.name === 'OK')!;
      await driver.act('click', { ref: ok.ref });
      expect(await zenityExit).toBe(0);
      // zenity's own answer: the fields joined by "|".
      expect(zenityOut.trim()).toBe('Zoë 日本|hunter2|Large');
    });

    it('sees Thunar’s icon view as an empty pane (Exo exposes no items); in its details view a click selects a file and does not open it', async () => {
      const pid = pids.thunar!;
      xdo('windowraise', windowOf(pid));
      // ExoIconView's accessible is GTK's plain container (a panel without children): the files are not
      // on the bus at all, for any client (docs/ax-protocol.md, Platform notes).
      const full = await driver.snapshot({ app: String(pid) });
      const pane = full.elements.findIndex((e) => e.role === 'group' && e.name === 'Icon view');
      expect(pane).toBeGreaterThanOrEqual(0);
      expect(full.elements.filter((e) => e.parent === pane)).toEqual([]);
      expect(readApp(pid).some((n) => n.name === 'alpha.txt')).toBe(false);
      // The details view (ctrl+2) is a GtkTreeView: each file is a cell.
      await driver.act('key', { keys: 'ctrl+2', app: String(pid) });
      const fileCells = async () =>
        (await driver.snapshot({ app: String(pid), filter: 'interactive' })).elements.filter(
          (e) => e.role === 'cell' && /^(alpha|beta)\.txt$/.test(e.name),
        );
      await expect
        .poll(async () => (await fileCells()).map((c) => c.name), { timeout: 5_000 })
        .toEqual(['alpha.txt', 'beta.txt']);
      const windowsBefore = xdo('search', '--onlyvisible', '--name', '.').split('\n').length;
      const beta = (await fileCells())[1]!;
      const out = await driver.act('click', { ref: beta.ref });
      // With the mouse, as a person clicks: the point is found to show the cell even though the notebook
      // around the view (its tabs hidden) answers no child at any point.
      expect(out.result).toMatchObject({ verified: true, method: 'mouse' });
      // Thunar's status bar names the selected file (read without the helper), and nothing was opened:
      // no new window, no other app (a double click's `row-activated` would open it in an editor).
      await expect
        .poll(() => readApp(pid).find((n) => n.role === 'status-bar')?.name ?? '', { timeout: 5_000 })
        .toMatch(/^"beta\.txt"/);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(xdo('search', '--onlyvisible', '--name', '.').split('\n').length).toBe(windowsBefore);
      expect(xdo('getwindowname', windowOf(pid))).toMatch(/^files/);
      const selected = readApp(pid).filter((n) => n.role === 'table-cell' && n.states.includes('selected'));
      expect(selected.map((n) => n.name)).toContain('beta.txt');
      expect(selected.map((n) => n.name)).not.toContain('alpha.txt');
    });

    it('keeps tree cells in the interactive view and clicks one as a person would (Thunar opens the place)', async () => {
      const pid = pids.thunar!;
      xdo('windowraise', windowOf(pid));
      const view = await driver.snapshot({ app: String(pid), filter: 'interactive' });
      const cells = view.elements.filter((e) => e.role === 'cell');
      expect(cells.map((c) => c.name)).toEqual(expect.arrayContaining(['Computer', 'Trash']));
      const computer = cells.filter((c) => c.name === 'Computer');
      expect(computer).toHaveLength(1);
      const out = await driver.act('click', { ref: computer[0]!.ref });
      expect(out.result).toMatchObject({ verified: true });
      // The X server's title of Thunar's window: it shows the place the click opened.
      await expect.poll(() => xdo('getwindowname', windowOf(pid)), { timeout: 5_000 }).toMatch(/^Computer/);
    });
  },
);
