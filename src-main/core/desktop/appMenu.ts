/**
 * The application menu, as plain data (the shell hands it to `Menu.buildFromTemplate`). Electron's
 * default menu has View → Toggle Developer Tools (⌥⌘I) and Reload (⌘R) in every build; a shipped Rein
 * must not open the DevTools on its page (they reach the preload's bridge), so they exist only in a
 * development build. The Edit menu stays: on macOS the text fields' ⌘C/⌘V/⌘Z/⌘A are its key
 * equivalents, even while the menu bar is hidden (LSUIElement). ⌘W closes (hides) the window.
 * On Linux and Windows a packaged build has no menu bar at all (Chromium's own text shortcuts work).
 */

/** The subset of Electron's MenuItemConstructorOptions this menu uses (core never imports electron). */
export interface MenuEntry {
  label?: string;
  role?:
    | 'appMenu'
    | 'about'
    | 'hide'
    | 'hideOthers'
    | 'unhide'
    | 'quit'
    | 'editMenu'
    | 'undo'
    | 'redo'
    | 'cut'
    | 'copy'
    | 'paste'
    | 'selectAll'
    | 'close'
    | 'minimize'
    | 'reload'
    | 'forceReload'
    | 'toggleDevTools';
  type?: 'separator';
  accelerator?: string;
  submenu?: MenuEntry[];
}

/** The menu for this build; `null` means none (Linux and Windows, packaged). */
export function appMenuTemplate(o: { platform: NodeJS.Platform; packaged: boolean }): MenuEntry[] | null {
  const dev: MenuEntry[] = o.packaged
    ? []
    : [{ label: 'Develop', submenu: [{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }] }];
  if (o.platform !== 'darwin') return o.packaged ? null : dev;
  return [
    {
      label: 'Rein',
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    {
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    { label: 'Window', submenu: [{ role: 'close' }, { role: 'minimize' }] },
    ...dev,
  ];
}

/** Every role in a template, depth first (tests: no DevTools in a packaged menu). */
export function menuRoles(template: readonly MenuEntry[] | null): string[] {
  const out: string[] = [];
  const walk = (entries: readonly MenuEntry[]) => {
    for (const e of entries) {
      if (e.role) out.push(e.role);
      if (e.submenu) walk(e.submenu);
    }
  };
  walk(template ?? []);
  return out;
}
