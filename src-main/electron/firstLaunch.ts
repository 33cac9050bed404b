/**
 * Offers to move Rein into /Applications before anything records where it is (the login item, the
 * launchd jobs of schedules, which the daemon's start re-syncs). The decision and its words are
 * core/desktop/firstLaunch.ts; this file only asks Electron and macOS.
 *
 * `app.moveToApplicationsFolder` moves the bundle (asking for an administrator's password when
 * /Applications needs one), replaces an older Rein there (a running one is brought to the front and
 * this copy quits), and relaunches from the new place: when it returns true this process is about to
 * quit, so the caller starts nothing.
 */
import { homedir } from 'node:os';
import { app, dialog } from 'electron';
import { moveToApplicationsDecision } from '../core/desktop/firstLaunch.js';
import { errorMessage } from '../core/errors.js';

export interface MoveOptions {
  platform: NodeJS.Platform;
  packaged: boolean;
  /** The person chose "Don't ask again" earlier (desktop.json). */
  declined: boolean;
  /** Saves "Don't ask again". */
  rememberDeclined(): Promise<void>;
  warn(message: string): void;
  executable?: string;
  home?: string;
}

export type MoveOutcome = 'moved' | 'stayed' | 'not_offered';

export async function offerMoveToApplications(o: MoveOptions): Promise<MoveOutcome> {
  const decision = moveToApplicationsDecision({
    platform: o.platform,
    packaged: o.packaged,
    // Asked only where it means something: it exists on macOS alone.
    inApplicationsFolder: o.platform === 'darwin' && o.packaged ? app.isInApplicationsFolder() : false,
    executable: o.executable ?? process.execPath,
    home: o.home ?? homedir(),
    declined: o.declined,
  });
  if (!decision.offer) return 'not_offered';
  const { prompt } = decision;
  // No window exists yet (nothing else runs), so a box without a parent is fine here.
  const answer = await dialog.showMessageBox({
    type: 'question',
    title: prompt.title,
    message: prompt.message,
    detail: prompt.detail,
    buttons: prompt.buttons,
    defaultId: prompt.defaultId,
    cancelId: prompt.cancelId,
    noLink: true,
    ...(prompt.checkboxLabel ? { checkboxLabel: prompt.checkboxLabel, checkboxChecked: false } : {}),
  });
  if (answer.response !== prompt.defaultId) {
    if (answer.checkboxChecked && prompt.checkboxLabel)
      await o
        .rememberDeclined()
        .catch((e: unknown) => o.warn(`"Don't ask again" could not be saved: ${errorMessage(e)}`));
    o.warn(
      `Rein stays at ${o.executable ?? process.execPath} (${prompt.place}); the person chose not to move it to Applications`,
    );
    return 'stayed';
  }
  try {
    // An older Rein in Applications is replaced; a running one comes to the front and this copy quits.
    const moved = app.moveToApplicationsFolder({ conflictHandler: () => true });
    if (moved) return 'moved';
    o.warn('Rein could not be moved to Applications (macOS refused the move)');
  } catch (e) {
    o.warn(`Rein could not be moved to Applications: ${errorMessage(e)}`);
  }
  await dialog.showMessageBox({
    type: 'warning',
    title: 'Rein could not be moved',
    message: 'Rein could not move itself to the Applications folder.',
    detail: 'Quit Rein, drag Rein.app into the Applications folder in Finder, and open it from there.',
    buttons: ['OK'],
    noLink: true,
  });
  return 'stayed';
}

/**
 * The first-launch step of the app's start (src-main/index.ts), before the desktop app starts its
 * daemon (whose start re-syncs launchd jobs) or anything applies a login item. "Don't ask again" is
 * kept in desktop.json; a broken desktop.json asks as if nothing had been said.
 */
export async function moveToApplicationsIfWanted(o: {
  home: string;
  platform: NodeJS.Platform;
  packaged: boolean;
  warn(message: string): void;
}): Promise<MoveOutcome> {
  if (o.platform !== 'darwin' || !o.packaged) return 'not_offered';
  const { loadDesktopSettings, updateDesktopSettings } = await import('../core/config/desktopSettings.js');
  const declined = await loadDesktopSettings(o.home).then(
    (s) => s.move_to_applications_declined,
    () => false,
  );
  return offerMoveToApplications({
    platform: o.platform,
    packaged: o.packaged,
    declined,
    rememberDeclined: async () => void (await updateDesktopSettings(o.home, { move_to_applications_declined: true })),
    warn: o.warn,
  });
}
