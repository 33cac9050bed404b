import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { Tray, resetElectronMock, type FakeMenuItem } from '../../support/electronMock.js';
import { trayStateFor } from '../../../src-main/core/desktop/trayState.js';
import { ReinTray, TRAY_ICON_FILES } from '../../../src-main/electron/tray.js';

const ICONS = join(import.meta.dirname, '../../../resources/tray');

function setup() {
  const actions = { open: vi.fn(), quit: vi.fn() };
  const tray = new ReinTray(ICONS, actions, trayStateFor(0, 0, undefined));
  const fake = Tray.created.at(-1)!;
  const items = () => (fake.contextMenu as { items: FakeMenuItem[] }).items;
  const item = (label: string) => {
    const found = items().find((i) => i.label === label);
    if (!found)
      throw new Error(
        `no tray menu item "${label}" in ${items()
          .map((i) => i.label)
          .join(', ')}`,
      );
    return found;
  };
  return { tray, fake, actions, items, item };
}

beforeEach(() => resetElectronMock());

describe('tray', () => {
  it('has a template image at 1x and 2x in resources/tray for every state', () => {
    for (const file of Object.values(TRAY_ICON_FILES)) {
      expect(file).toMatch(/Template\.png$/);
      expect(existsSync(join(ICONS, file))).toBe(true);
      expect(existsSync(join(ICONS, file.replace('.png', '@2x.png')))).toBe(true);
    }
  });

  it('starts idle with the idle template image and the plain tooltip', () => {
    const { fake } = setup();
    expect(fake.image).toMatchObject({ path: join(ICONS, 'trayIdleTemplate.png'), template: true });
    expect(fake.toolTip).toBe('Rein');
    expect(fake.title).toBe('');
  });

  it('switches image, tooltip and the count beside the icon with the state', () => {
    const { tray, fake, item } = setup();
    tray.update(trayStateFor(0, 1, undefined));
    expect(fake.image).toMatchObject({ path: join(ICONS, 'trayWorkingTemplate.png') });
    tray.update(trayStateFor(2, 1, undefined));
    expect(fake.image).toMatchObject({ path: join(ICONS, 'trayApprovalTemplate.png') });
    expect(fake.title).toBe('2');
    expect(fake.toolTip).toBe('Rein: 2 approvals waiting for you');
    expect(item('Approvals (2)')).toBeDefined();
    tray.update(trayStateFor(0, 0, 'run failed: boom'));
    expect(fake.image).toMatchObject({ path: join(ICONS, 'trayErrorTemplate.png') });
    expect(fake.title).toBe('');
    expect(item('Approvals')).toBeDefined();
  });

  it('opens chat, approvals, agents, sessions and settings from the menu, and quits', () => {
    const { item, actions } = setup();
    item('Open Chat').click?.();
    item('Approvals').click?.();
    item('Agents').click?.();
    item('Sessions').click?.();
    item('Schedules').click?.();
    item('Settings…').click?.();
    expect(actions.open.mock.calls.map((c) => c[0])).toEqual([
      'chat',
      'approvals',
      'agents',
      'sessions',
      'schedules',
      'settings',
    ]);
    item('Quit Rein').click?.();
    expect(actions.quit).toHaveBeenCalledTimes(1);
  });

  it('no longer says schedules are "not available yet": Schedules opens their view', () => {
    const { items } = setup();
    expect(
      items().some((i) => /not available yet|Pause All Schedules/.test(`${i.label ?? ''} ${i.toolTip ?? ''}`)),
    ).toBe(false);
  });

  it('shows a notice at the top of the menu (a hotkey that could not be registered) that opens where it is fixed, and removes it', () => {
    const { tray, items, item, actions } = setup();
    tray.setNotices([{ label: 'Shortcut CommandOrControl+Shift+Space is not available', opens: 'settings' }]);
    expect(items()[0]!.label).toBe('⚠ Shortcut CommandOrControl+Shift+Space is not available');
    expect(items()[1]!.type).toBe('separator');
    item('⚠ Shortcut CommandOrControl+Shift+Space is not available').click?.();
    expect(actions.open).toHaveBeenCalledWith('settings');
    tray.setNotices([]);
    expect(items()[0]!.label).toBe('Open Chat');
  });

  it('goes away when disposed', () => {
    const { tray, fake } = setup();
    tray.dispose();
    expect(fake.destroyed).toBe(true);
  });
});
