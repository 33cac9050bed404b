// GTK 3 widgets the issue found mishandled elsewhere (issue 27), on the fixture app's `--more` frame: a
// GtkCalendar (once `unknown`), a GtkComboBoxText (set-value chose on the popup menu and left the combo
// blank; get_value returned the combo's name), and a GtkTreeView whose rows a click must select (Thunar's
// `activate` did nothing and was reported as "the app reacted"). Every effect is read back from the
// fixture's own state (its `state` command), never from the helper's answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AXClient } from '../../src-main/core/ax/axClient.js';
import { AxDriver } from '../../src-main/core/ax/axDriver.js';
import { RefTable } from '../../src-main/core/ax/refs.js';
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

describe.runIf(missing.length > 0 && inCi)('the Linux helper on GTK 3 calendars, combos and tree views', () => {
  it('needs the desktop test packages under CI', () => {
    throw new Error(`the GTK widget tests need ${missing.join(', ')} under CI=true (.ci/run installs them)`);
  });
});

const title = 'the Linux helper on GTK 3 calendars, combos and tree views';
describe.skipIf(missing.length > 0)(missing.length ? `${title} (${skipReason(missing)})` : title, () => {
  useLeakCheck();
  let desktop: Desktop;
  let client: AXClient;
  let driver: AxDriver;
  let app: FixtureApp;
  const appName = () => String(app.pid);

  beforeAll(async () => {
    desktop = await startDesktop();
    client = desktop.client();
    driver = new AxDriver(client, new RefTable());
    app = await desktop.startFixture(['--rows', '5', '--more']);
    await desktop.waitForApp(client, app.pid);
  }, 60_000);

  afterAll(async () => {
    await desktop?.close();
  });

  it('reports a GtkCalendar as a calendar', async () => {
    const view = await driver.snapshot({ app: appName() });
    const calendars = view.elements.filter((e) => e.role === 'calendar');
    expect(calendars).toHaveLength(1);
    expect(view.elements.filter((e) => e.role === 'unknown').map((e) => e.raw_role)).not.toContain('calendar');
    expect((await driver.find({ app: appName(), role: 'calendar' })).elements).toHaveLength(1);
    expect((await app.state()).calendar).toEqual([2024, 5, 15]);
  });

  it('keeps the calendar in the interactive view', async () => {
    const view = await driver.snapshot({ app: appName(), filter: 'interactive' });
    expect(view.elements.filter((e) => e.role === 'calendar')).toHaveLength(1);
  });

  it('chooses a combo’s item on the combo itself, and get_value gives the choice, not the combo’s name', async () => {
    const [combo] = (await driver.find({ app: appName(), role: 'combobox' })).elements;
    expect(combo).toMatchObject({ name: 'Size' });
    expect((await app.state()).combo).toBe('Small');
    const out = await driver.act('set_value', { ref: combo!.ref, value: 'Large' });
    expect(out.result).toMatchObject({ verified: true, value: 'Large' });
    expect((await app.state()).combo).toBe('Large');
    expect((await driver.act('get_value', { ref: combo!.ref })).result).toMatchObject({ value: 'Large', kind: 'text' });
    // The ref still works after the choice (GTK 3 would rename an unlabelled combo after its item).
    await driver.act('set_value', { ref: combo!.ref, value: 'Medium' });
    expect((await app.state()).combo).toBe('Medium');
    await expect(driver.act('set_value', { ref: combo!.ref, value: 'Huge' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await app.state()).combo).toBe('Medium');
  });

  it('keeps the tree view’s cells in the interactive view and selects the row a click names', async () => {
    const view = await driver.snapshot({ app: appName(), filter: 'interactive' });
    const cells = view.elements.filter((e) => e.role === 'cell');
    expect(cells.map((c) => c.name)).toEqual(['Apple', 'Banana', 'Cherry', 'Locked']);
    expect((await app.state()).tree_selected).toEqual([]);
    const banana = await driver.act('click', { ref: cells[1]!.ref });
    expect(banana.result).toMatchObject({ verified: true });
    expect((await app.state()).tree_selected).toEqual(['Banana']);
    const cherry = await driver.act('click', { ref: cells[2]!.ref });
    expect(cherry.result).toMatchObject({ verified: true });
    expect((await app.state()).tree_selected).toEqual(['Cherry']);
    // A second click on the selected cell keeps it selected (and is not taken for a double click).
    expect((await driver.act('click', { ref: cells[2]!.ref })).result).toMatchObject({ verified: true });
    const state = await app.state();
    expect(state.tree_selected).toEqual(['Cherry']);
    // A single click selects and focuses, as the mouse does: it never activates the row (a double click's
    // `row-activated`, which would open the file in a file list).
    expect(state.tree_activated).toEqual([]);
    expect(state).toMatchObject({ tree_focus: true, tree_cursor: 'Cherry' });
  });

  it('reports a click that selects nothing as a failure, not as "the app reacted"', async () => {
    // The app refuses to select "Locked": its cell's activate action, the mouse and Selection all do nothing.
    const [locked] = (await driver.find({ app: appName(), role: 'cell', name: 'Locked', exact: true })).elements;
    await expect(driver.act('click', { ref: locked!.ref })).rejects.toMatchObject({
      code: 'FAILED',
      message: expect.stringMatching(/did not become selected/),
    });
    const state = await app.state();
    expect(state.tree_selected).toEqual(['Cherry']);
    expect(state.tree_activated).toEqual([]);
  });
});
