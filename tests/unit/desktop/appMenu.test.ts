import { describe, expect, it } from 'vitest';
import { appMenuTemplate, menuRoles } from '../../../src-main/core/desktop/appMenu.js';

describe('the application menu', () => {
  it('has no DevTools or Reload in a packaged build, on any platform', () => {
    for (const platform of ['darwin', 'linux', 'win32'] as const) {
      const roles = menuRoles(appMenuTemplate({ platform, packaged: true }));
      expect(roles).not.toContain('toggleDevTools');
      expect(roles).not.toContain('reload');
      expect(roles).not.toContain('forceReload');
    }
    expect(appMenuTemplate({ platform: 'linux', packaged: true })).toBeNull();
  });

  it("keeps the Edit menu on macOS (the text fields' ⌘C/⌘V/⌘Z), and DevTools in a development build", () => {
    const packaged = menuRoles(appMenuTemplate({ platform: 'darwin', packaged: true }));
    expect(packaged).toEqual(
      expect.arrayContaining(['copy', 'paste', 'cut', 'undo', 'redo', 'selectAll', 'quit', 'close']),
    );
    expect(menuRoles(appMenuTemplate({ platform: 'darwin', packaged: false }))).toContain('toggleDevTools');
    expect(menuRoles(appMenuTemplate({ platform: 'linux', packaged: false }))).toEqual([
      'reload',
      'forceReload',
      'toggleDevTools',
    ]);
  });
});
