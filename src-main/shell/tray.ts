/**
 * The menu-bar icon: the only way back to Rein once its window is hidden, and the way to quit it
 * (with LSUIElement the app has no Dock icon and no application menu). Its image says what Rein is
 * doing (idle, working, waiting for an approval, failed); beside it, the number of waiting approvals.
 */
import { join } from 'node:path';
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import type { DesktopView } from '../core/api/desktopApi.js';
import type { TrayState, TrayStateName } from '../core/desktop/trayState.js';

export interface TrayActions {
  open(view: DesktopView): void;
  quit(): void;
}

/** Template images (black on transparent, `…Template.png`); macOS tints them for light and dark menu bars. */
export const TRAY_ICON_FILES: Record<TrayStateName, string> = {
  idle: 'trayIdleTemplate.png',
  working: 'trayWorkingTemplate.png',
  approval: 'trayApprovalTemplate.png',
  error: 'trayErrorTemplate.png',
};

export const PAUSE_SCHEDULES_TOOLTIP = 'Schedules are not available yet';

export class ReinTray {
  readonly #tray: Tray;
  readonly #icons = new Map<TrayStateName, NativeImage>();
  #shown: TrayState | undefined;

  constructor(
    private readonly iconDir: string,
    private readonly actions: TrayActions,
    initial: TrayState,
  ) {
    this.#tray = new Tray(this.#icon(initial.name));
    this.update(initial);
  }

  update(state: TrayState): void {
    const before = this.#shown;
    if (before && before.name === state.name && before.title === state.title && before.tooltip === state.tooltip) return;
    this.#shown = state;
    if (!before || before.name !== state.name) this.#tray.setImage(this.#icon(state.name));
    this.#tray.setTitle(state.title);
    this.#tray.setToolTip(state.tooltip);
    if (!before || before.title !== state.title) this.#tray.setContextMenu(Menu.buildFromTemplate(this.#menu(state)));
  }

  dispose(): void {
    this.#tray.destroy();
  }

  #icon(name: TrayStateName): NativeImage {
    let icon = this.#icons.get(name);
    if (!icon) {
      icon = nativeImage.createFromPath(join(this.iconDir, TRAY_ICON_FILES[name]));
      icon.setTemplateImage(true);
      this.#icons.set(name, icon);
    }
    return icon;
  }

  #menu(state: TrayState): MenuItemConstructorOptions[] {
    const open = (view: DesktopView) => () => this.actions.open(view);
    const waiting = state.name === 'approval' ? ` (${state.title})` : '';
    return [
      { label: 'Open Chat', click: open('chat') },
      { label: `Approvals${waiting}`, click: open('approvals') },
      { label: 'Agents', click: open('agents') },
      { label: 'Sessions', click: open('sessions') },
      { type: 'separator' },
      // A placeholder until Rein has schedules: visible so people know it is coming, never clickable.
      { label: 'Pause All Schedules', enabled: false, toolTip: PAUSE_SCHEDULES_TOOLTIP },
      { type: 'separator' },
      { label: 'Settings…', click: open('settings') },
      { type: 'separator' },
      { label: 'Quit Rein', click: () => this.actions.quit() },
    ];
  }
}
