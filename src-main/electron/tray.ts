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
  /** "Check for Updates…" (electron/updater.ts); absent, the item is not shown. */
  checkForUpdates?(): void;
}

/** Template images (black on transparent, `…Template.png`); macOS tints them for light and dark menu bars. */
export const TRAY_ICON_FILES: Record<TrayStateName, string> = {
  idle: 'trayIdleTemplate.png',
  working: 'trayWorkingTemplate.png',
  approval: 'trayApprovalTemplate.png',
  error: 'trayErrorTemplate.png',
};

/** A line the menu shows about something the person set up that does not work (the hotkey is taken…). */
export interface TrayNotice {
  label: string;
  /** The view a click opens (where it is fixed). */
  opens: DesktopView;
}

/**
 * The trays this process shows, on globalThis: the packaged-app smoke test (tests/e2e/packaged/)
 * reads it through Playwright's main-process evaluate, which cannot reach the bundle's modules.
 */
const liveTrays = (): Set<Tray> => ((globalThis as { __reinTrays?: Set<Tray> }).__reinTrays ??= new Set());

export class ReinTray {
  readonly #tray: Tray;
  readonly #icons = new Map<TrayStateName, NativeImage>();
  #shown: TrayState | undefined;
  #notices: readonly TrayNotice[] = [];

  constructor(
    private readonly iconDir: string,
    private readonly actions: TrayActions,
    initial: TrayState,
  ) {
    this.#tray = new Tray(this.#icon(initial.name));
    liveTrays().add(this.#tray);
    this.update(initial);
  }

  update(state: TrayState): void {
    const before = this.#shown;
    if (before && before.name === state.name && before.title === state.title && before.tooltip === state.tooltip)
      return;
    this.#shown = state;
    if (!before || before.name !== state.name) this.#tray.setImage(this.#icon(state.name));
    this.#tray.setTitle(state.title);
    this.#tray.setToolTip(state.tooltip);
    if (!before || before.title !== state.title) this.#tray.setContextMenu(Menu.buildFromTemplate(this.#menu(state)));
  }

  /** Problems shown at the top of the menu (an honest hotkey status, say); [] removes them. */
  setNotices(notices: readonly TrayNotice[]): void {
    const same =
      notices.length === this.#notices.length &&
      notices.every((n, i) => n.label === this.#notices[i]?.label && n.opens === this.#notices[i]?.opens);
    if (same) return;
    this.#notices = [...notices];
    if (this.#shown) this.#tray.setContextMenu(Menu.buildFromTemplate(this.#menu(this.#shown)));
  }

  dispose(): void {
    liveTrays().delete(this.#tray);
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
    const notices: MenuItemConstructorOptions[] = this.#notices.map((n) => ({
      label: `⚠ ${n.label}`,
      click: open(n.opens),
    }));
    return [
      ...notices,
      ...(notices.length > 0 ? [{ type: 'separator' } as const] : []),
      { label: 'Open Chat', click: open('chat') },
      { label: `Approvals${waiting}`, click: open('approvals') },
      { label: 'Agents', click: open('agents') },
      { label: 'Sessions', click: open('sessions') },
      // Schedules exist: each can be disabled, run or read there.
      { label: 'Schedules', click: open('schedules') },
      { type: 'separator' },
      { label: 'Settings…', click: open('settings') },
      ...(this.actions.checkForUpdates
        ? [{ label: 'Check for Updates…', click: () => this.actions.checkForUpdates?.() }]
        : []),
      { type: 'separator' },
      { label: 'Quit Rein', click: () => this.actions.quit() },
    ];
  }
}
