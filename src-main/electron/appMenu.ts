/**
 * Sets the application menu from core/desktop/appMenu.ts: no DevTools or Reload in a packaged build
 * (Electron's default menu has both), the Edit menu's text shortcuts on macOS, no menu bar elsewhere.
 */
import { Menu, type MenuItemConstructorOptions } from 'electron';
import { appMenuTemplate } from '../core/desktop/appMenu.js';

export function applyAppMenu(platform: NodeJS.Platform, packaged: boolean): void {
  const template = appMenuTemplate({ platform, packaged });
  Menu.setApplicationMenu(template ? Menu.buildFromTemplate(template as MenuItemConstructorOptions[]) : null);
}
