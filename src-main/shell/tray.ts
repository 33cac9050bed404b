/**
 * The menu-bar icon: the only way back to Rein once its window is hidden, and the way to quit it
 * (with LSUIElement the app has no Dock icon and no application menu).
 */
import { Menu, Tray, nativeImage } from 'electron';

export interface TrayActions {
  show(): void;
  quit(): void;
}

/** `iconPath` names a template image (…Template.png); macOS tints it for light and dark menu bars. */
export function createTray(iconPath: string, actions: TrayActions): Tray {
  const icon = nativeImage.createFromPath(iconPath);
  icon.setTemplateImage(true);
  const tray = new Tray(icon);
  tray.setToolTip('Rein');
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Open Rein', click: () => actions.show() },
      { type: 'separator' },
      { label: 'Quit Rein', click: () => actions.quit() },
    ]),
  );
  return tray;
}
