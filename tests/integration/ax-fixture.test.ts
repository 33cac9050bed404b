// The Linux helper against the fixture app (GTK3) under Xvfb: snapshots and find with refs, clicks that
// toggle, values set and read (a secure field never shown), keys and typing, scrolling, waiting for a
// change instead of sleeping, and an annotated screenshot whose boxes sit on the elements' bounds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { GuiToolProvider } from '../../src-main/core/ax/guiProvider.js';
import { RefTable, type SnapshotView } from '../../src-main/core/ax/refs.js';
import { renderSnapshot } from '../../src-main/core/ax/render.js';
import {
  desktopParts,
  inCi,
  skipReason,
  startDesktop,
  type Desktop,
  type FixtureApp,
} from '../fixtures/ax/desktopSession.js';
import { readPng } from '../fixtures/ax/png.js';
import { useLeakCheck } from '../support/leaks.js';

const missing = desktopParts();

describe.runIf(missing.length > 0 && inCi)('the Linux helper with the fixture app', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

describe.skipIf(missing.length > 0)(
  missing.length
    ? `the Linux helper with the fixture app (${skipReason(missing)})`
    : 'the Linux helper with the fixture app',
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let client: AXClient;
    let app: FixtureApp;
    let driver: AxDriver;
    let view: SnapshotView;

    beforeAll(async () => {
      desktop = await startDesktop();
      client = desktop.client();
      app = await desktop.startFixture();
      await desktop.waitForApp(client, app.pid);
      driver = new AxDriver(client, new RefTable());
      view = await driver.snapshot({ app: String(app.pid) });
    }, 60_000);

    afterAll(async () => {
      await desktop?.close();
    });

    const ref = (name: string, role?: string) => {
      const el = view.elements.find((e) => e.name === name && (!role || e.role === role));
      if (!el) throw new Error(`no ${role ?? 'element'} "${name}"`);
      return el.ref;
    };

    it('snapshots the window with normalised roles, states and refs, and never shows a secure value', () => {
      expect(view.app.pid).toBe(app.pid);
      expect(view.windows.map((w) => w.name)).toEqual(['Rein AX Fixture']);
      const byName = (n: string) => view.elements.find((e) => e.name === n)!;
      expect(byName('Rein AX Fixture').role).toBe('window');
      expect(byName('Count').role).toBe('button');
      expect(byName('Remember me').role).toBe('checkbox');
      expect(byName('Locked').states).toContain('disabled');
      expect(byName('Volume')).toMatchObject({ role: 'slider', value: '50' });
      expect(byName('Name')).toMatchObject({ role: 'textfield', value: '' });
      expect(byName('Password')).toMatchObject({ role: 'textfield', secure: true });
      expect(byName('Password').value).toBeUndefined();
      expect(byName('Row 000').role).toBe('row');
      expect(byName('Save').ancestry).toEqual([
        { role: 'window', name: 'Rein AX Fixture' },
        { role: 'group', name: 'Actions' },
      ]);
      expect(new Set(view.elements.map((e) => e.ref)).size).toBe(view.elements.length);
      const text = renderSnapshot(view);
      expect(text).toContain(`button "Save" [${ref('Save')}]`);
      expect(text).toContain('(secure, not shown)');
    });

    it('keeps refs across snapshots, and the interactive filter lists only controls and what holds them', async () => {
      const again = await driver.snapshot({ app: String(app.pid), filter: 'interactive' });
      const save = again.elements.find((e) => e.name === 'Save')!;
      expect(save.ref).toBe(ref('Save'));
      expect(
        again.elements.every((e) =>
          ['window', 'group', 'button', 'checkbox', 'slider', 'textfield', 'row'].includes(e.role),
        ),
      ).toBe(true);
      expect(again.elements.some((e) => e.role === 'text')).toBe(false);
      const small = await driver.snapshot({ app: String(app.pid), maxNodes: 5 });
      expect(small.elements).toHaveLength(5);
      expect(small.truncated).toBe(true);
    });

    it('finds elements with Collection.GetMatches, giving refs that act', async () => {
      const boxes = await driver.find({ app: String(app.pid), role: 'checkbox' });
      expect(boxes.elements.map((e) => e.name)).toEqual(['Remember me']);
      expect(boxes.elements[0]!.ref).toBe(ref('Remember me'));
      const saves = await driver.find({ app: String(app.pid), name: 'sav' });
      expect(saves.elements.map((e) => `${e.role} ${e.name}`)).toEqual(['button Save']);
      expect(saves.elements[0]!.ancestry.map((a) => a.name)).toEqual(['Rein AX Fixture', 'Actions']);
      const none = await driver.find({ app: String(app.pid), role: 'link' });
      expect(none.elements).toEqual([]);
    });

    it('clicks a checkbox by ref: it toggles, the effect is seen, and the answer says what it acted on', async () => {
      const out = await driver.act('click', { ref: ref('Remember me') });
      expect(out.actedOn).toMatchObject({ role: 'checkbox', name: 'Remember me', resolved_by: 'identity' });
      expect(out.actedOn?.bounds?.[2]).toBeGreaterThan(0);
      expect(out.effect?.observed).toBe(true);
      expect(out.effect?.events.join(' ')).toContain('checked');
      expect(out.summary).toMatch(/^clicked checkbox "Remember me" \[e\d+\] at \(/);
      expect((await app.state()).remember).toBe(true);
      const value = await driver.act('get_value', { ref: ref('Remember me') });
      expect(value.result).toMatchObject({ value: 'true', kind: 'state' });
      await driver.act('set_value', { ref: ref('Remember me'), value: 'false' });
      expect((await app.state()).remember).toBe(false);
    });

    it('sets and reads text, numbers and a secure field (whose value is never reported)', async () => {
      const name = await driver.act('set_value', { ref: ref('Name'), value: 'Ada Lovelace' });
      expect(name.result.value).toBe('Ada Lovelace');
      expect((await driver.act('get_value', { ref: ref('Name') })).result.value).toBe('Ada Lovelace');
      const secret = await driver.act('set_value', { ref: ref('Password'), value: 'hunter2' });
      expect(secret.result).toMatchObject({ secure: true, value: null });
      expect(JSON.stringify(secret)).not.toContain('hunter2');
      const read = await driver.act('get_value', { ref: ref('Password') });
      expect(read.result).toMatchObject({ value: null, secure: true });
      const vol = await driver.act('set_value', { ref: ref('Volume'), value: '80' });
      expect(vol.result.value).toBe('80');
      await expect(driver.act('set_value', { ref: ref('Volume'), value: '500' })).rejects.toMatchObject({
        code: 'INVALID',
      });
      const state = await app.state();
      expect(state).toMatchObject({ name: 'Ada Lovelace', password_length: 7, volume: 80 });
    });

    it('types into a ref at its caret, and sends keys to the focused ref', async () => {
      await driver.act('set_value', { ref: ref('Name'), value: 'abc' });
      const typed = await driver.act('type_text', { ref: ref('Name'), text: 'def' });
      expect(typed.result.method).toBe('insert_text');
      expect(((await app.state()).name as string).split('').sort().join('')).toBe('abcdef');
      const keyed = await driver.act('key', { ref: ref('Name'), keys: 'ctrl+a' });
      expect(keyed.actedOn?.name).toBe('Name');
      await driver.act('type_text', { text: 'xyz' });
      expect((await app.state()).name).toBe('xyz');
      await expect(driver.act('key', { keys: 'hyper+q' })).rejects.toMatchObject({ code: 'INVALID' });
    });

    it('scrolls the list by steps and brings a row into view', async () => {
      const row = ref('Row 000');
      const down = await driver.act('scroll', { ref: row, direction: 'down', amount: 5 });
      expect(down.result.method).toBe('scrollbar');
      expect((await app.state()).scroll).toBeGreaterThan(0);
      await app.command('scroll-list-bottom');
      const back = await driver.act('scroll', { ref: row, intoView: true });
      expect(back.result.in_view).toBe(true);
      expect((await app.state()).scroll).toBe(0);
    });

    it('waits for a change instead of sleeping, and says TIMEOUT when it does not come', async () => {
      await app.command('later 300 click count');
      // Not there yet when the wait begins: the wait sees it come.
      expect((await driver.find({ app: String(app.pid), role: 'text', name: 'count: 1' })).elements).toEqual([]);
      const r = await driver.waitFor({
        app: String(app.pid),
        condition: 'exists',
        role: 'text',
        name: 'count: 1',
        timeoutMs: 5_000,
      });
      expect(r.met).toBe(true);
      expect((await app.state()).count).toBe(1);
      await expect(
        driver.waitFor({ app: String(app.pid), condition: 'exists', name: 'never there', timeoutMs: 300 }),
      ).rejects.toMatchObject({ code: 'TIMEOUT' });
      await app.command('disable delete');
      await app.command('later 300 enable delete');
      const enabled = await driver.waitFor({ condition: 'enabled', ref: ref('Delete'), timeoutMs: 3_000 });
      expect(enabled.waited_ms).toBeGreaterThan(150);
    });

    it('drives the app through the computer and screenshot tools by coordinates, with screenshots attached', async () => {
      const provider = new GuiToolProvider({ client, platform: 'linux' });
      try {
        const tools = new Map((await provider.tools()).map((t) => [t.name, t]));
        const ctx = {
          cwd: '/',
          sessionId: 's',
          sessionDir: '/tmp',
          reinHome: '/tmp',
          agent: 'default',
          readTracker: {} as never,
          egress: async () => ({ allowed: true as const }),
        };
        const signal = new AbortController().signal;
        const shot = await tools.get('screenshot')!.call({ app: String(app.pid) }, ctx, signal);
        expect(shot.ok).toBe(true);
        expect(shot.images?.[0]?.mediaType).toBe('image/png');
        // The screen is 1280 wide, so screenshot pixels are screen pixels.
        const [x, y, w, h] = view.elements.find((e) => e.name === 'Count')!.bounds!;
        const before = (await app.state()).count as number;
        const clicked = await tools
          .get('computer')!
          .call({ action: 'left_click', coordinate: [x + w / 2, y + h / 2] }, ctx, signal);
        expect(clicked.content).toMatch(/^left_click at \(\d+, \d+\) on the screen; screenshot 1280×1024/);
        expect(readPng(Buffer.from(clicked.images![0]!.data, 'base64')).channels).toBe(3);
        expect((await app.state()).count).toBe(before + 1);
        const waited = await tools
          .get('wait_for')!
          .call(
            { condition: 'exists', app: String(app.pid), role: 'text', name: `count: ${before + 1}`, timeout: 2 },
            ctx,
            signal,
          );
        expect(waited.content).toMatch(/^exists: met after \d+ ms/);
      } finally {
        provider.dispose();
      }
    });

    it('annotates a screenshot: numbered boxes on the elements’ bounds, and the refs they stand for', async () => {
      const a = await driver.annotate({ app: String(app.pid) });
      expect(a.labels.length).toBeGreaterThan(5);
      const pic = readPng(a.png);
      expect(pic.channels).toBe(3);
      expect([pic.width, pic.height]).toEqual([a.image.width, a.image.height]);
      const red = ([r, g, b]: [number, number, number]) => r > 200 && g < 80 && b < 80;
      for (const { element } of a.labels) {
        const [x, y, w, h] = element.bounds!;
        // Box edges: the bottom edge's middle and the right edge's middle are the box colour.
        expect(red(pic.at(x + (w >> 1), y + h - 1)), `${element.ref} bottom edge`).toBe(true);
        expect(red(pic.at(x + w - 1, y + (h >> 1))), `${element.ref} right edge`).toBe(true);
      }
      const save = a.labels.find((l) => l.element.name === 'Save')!;
      expect(save.element.ref).toBe(ref('Save'));
    });
  },
);
