// The Linux helper against a real GTK3 application, gtk3-widget-factory (~260 accessible nodes): the
// whole tree in one snapshot, find through Collection.GetMatches, a checkbox toggled by ref, an entry and
// a slider set, a text view scrolled, and the refs of a page that was switched away refused until it is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { RefTable, type SnapshotView } from '../../src-main/core/ax/refs.js';
import { desktopParts, inCi, skipReason, startDesktop, type Desktop } from '../fixtures/ax/desktopSession.js';
import { useLeakCheck } from '../support/leaks.js';

const missing = desktopParts({ widgetFactory: true });

describe.runIf(missing.length > 0 && inCi)('the Linux helper with gtk3-widget-factory', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the accessibility tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

describe.skipIf(missing.length > 0)(
  missing.length
    ? `the Linux helper with gtk3-widget-factory (${skipReason(missing)})`
    : 'the Linux helper with gtk3-widget-factory',
  () => {
    useLeakCheck();
    let desktop: Desktop;
    let client: AXClient;
    let pid: number;
    let driver: AxDriver;
    let view: SnapshotView;

    beforeAll(async () => {
      desktop = await startDesktop();
      client = desktop.client();
      pid = (await desktop.startApp('/usr/bin/gtk3-widget-factory')).pid;
      await desktop.waitForApp(client, pid);
      driver = new AxDriver(client, new RefTable());
      view = await driver.snapshot({ app: 'gtk3-widget-factory' });
    }, 60_000);

    afterAll(async () => {
      await desktop?.close();
    });

    it('takes the whole tree in one snapshot within the node budget', async () => {
      expect(view.app).toMatchObject({ name: 'gtk3-widget-factory', pid });
      expect(view.app.toolkit).toMatch(/^gtk 3/);
      expect(view.elements.length).toBeGreaterThan(100);
      expect(view.truncated).toBe(false);
      const roles = new Set(view.elements.map((e) => e.role));
      for (const r of ['window', 'button', 'checkbox', 'radio', 'textfield', 'slider', 'combobox'])
        expect(roles.has(r as never), r).toBe(true);
      expect(view.elements.filter((e) => e.role === 'unknown').length).toBeLessThan(view.elements.length / 10);
    });

    it('finds every visible checkbox with one GetMatches call, and toggles an enabled one by ref', async () => {
      const boxes = await driver.find({ app: String(pid), role: 'checkbox' });
      expect(boxes.elements.length).toBeGreaterThanOrEqual(6);
      const enabled = boxes.elements.find(
        (e) => !(e.states ?? []).includes('disabled') && !(e.states ?? []).includes('checked'),
      )!;
      const out = await driver.act('click', { ref: enabled.ref });
      expect(out.actedOn).toMatchObject({ role: 'checkbox', resolved_by: 'identity' });
      expect((await driver.act('get_value', { ref: enabled.ref })).result.value).toBe('true');
      const disabled = boxes.elements.find((e) => (e.states ?? []).includes('disabled'))!;
      await expect(driver.act('click', { ref: disabled.ref })).rejects.toMatchObject({ code: 'DISABLED' });
    });

    it('sets an entry’s text and a slider’s value', async () => {
      const entry = view.elements.find(
        (e) =>
          e.role === 'textfield' && !(e.states ?? []).includes('disabled') && !(e.states ?? []).includes('readonly'),
      )!;
      await driver.act('set_value', { ref: entry.ref, value: 'typed via AT-SPI' });
      expect((await driver.act('get_value', { ref: entry.ref })).result.value).toBe('typed via AT-SPI');
      const slider = view.elements.find((e) => e.role === 'slider' && !(e.states ?? []).includes('disabled'))!;
      const set = await driver.act('set_value', { ref: slider.ref, value: '90' });
      expect(Number(set.result.value)).toBe(90);
    });

    it('scrolls a text view by steps', async () => {
      const area = view.elements.find((e) => e.role === 'textarea');
      expect(area).toBeDefined();
      const out = await driver.act('scroll', { ref: area!.ref, direction: 'down', amount: 4 });
      expect(['scrollbar', 'wheel']).toContain(out.result.method);
      expect(out.result.after ?? 1).toBeGreaterThan((out.result.before as number | undefined) ?? 0);
    });

    it('refuses the refs of a page switched away (NOT_VISIBLE) and accepts them again once it is back', async () => {
      const page2 = view.elements.find((e) => e.role === 'radio' && e.name === 'Page 2')!;
      const page1 = view.elements.find((e) => e.role === 'radio' && e.name === 'Page 1')!;
      const box = (await driver.find({ app: String(pid), role: 'checkbox' })).elements.find(
        (e) => !(e.states ?? []).includes('disabled'),
      )!;
      await driver.act('click', { ref: page2.ref });
      await expect(driver.act('click', { ref: box.ref })).rejects.toMatchObject({ code: 'NOT_VISIBLE' });
      await driver.act('click', { ref: page1.ref });
      const again = await driver.act('click', { ref: box.ref });
      expect(again.actedOn).toMatchObject({ role: 'checkbox', resolved_by: 'identity' });
    });
  },
);
