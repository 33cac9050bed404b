/**
 * The first launch on a Mac: should Rein offer to move itself into /Applications, and in which words.
 *
 * A Rein opened where it was downloaded, from its disk image, or from the random read-only copy macOS
 * makes of a quarantined download (App Translocation) records a path that goes away: launchd jobs
 * (schedules) and the login item would start nothing once the DMG is ejected or the copy is gone. So
 * before anything records the app's path, the shell asks this function and, when it says so, offers
 * Electron's `app.moveToApplicationsFolder` (which moves the bundle, clears the quarantine and relaunches
 * it from there). Pure, so the rule is tested without a Mac; the Electron calls are electron/firstLaunch.ts.
 *
 * - Only a packaged app on macOS is ever moved (a development build runs from the checkout).
 * - A temporary place (translocated, a disk image, any other volume) is always offered: staying there
 *   keeps schedules refused (core/schedule/appLocation.ts).
 * - A lasting place outside /Applications (~/Downloads, the Desktop, ~/Apps…) is offered until the
 *   person says "Don't ask again" (`move_to_applications_declined` in desktop.json).
 */

export type AppPlace = 'applications' | 'translocated' | 'disk_image' | 'downloads' | 'elsewhere';

export interface MoveInput {
  platform: NodeJS.Platform;
  packaged: boolean;
  /** Electron's `app.isInApplicationsFolder()` (/Applications or ~/Applications). */
  inApplicationsFolder: boolean;
  /** The running executable (`process.execPath`). */
  executable: string;
  /** The user's home folder, to tell ~/Downloads. */
  home: string;
  /** The person chose "Don't ask again" earlier. */
  declined: boolean;
}

export interface MoveOffer {
  place: Exclude<AppPlace, 'applications'>;
  /** Whether staying breaks something now (the place goes away): no "Don't ask again" then. */
  temporary: boolean;
  title: string;
  message: string;
  detail: string;
  buttons: [string, string];
  /** Return moves (the safe, expected answer); Escape stays. */
  defaultId: 0;
  cancelId: 1;
  /** Offered only for a lasting place. */
  checkboxLabel?: string;
}

export type MoveDecision =
  | { offer: false; why: 'not_macos' | 'not_packaged' | 'in_applications' | 'declined' }
  | { offer: true; prompt: MoveOffer };

const bundleOf = (executable: string): string =>
  /^(.*?\.app)\/Contents\/MacOS\/[^/]+$/.exec(executable)?.[1] ?? executable;

/** Where the app runs from, as far as moving it goes. */
export function appPlace(executable: string, inApplicationsFolder: boolean, home: string): AppPlace {
  if (/\/AppTranslocation\//.test(executable)) return 'translocated';
  if (inApplicationsFolder) return 'applications';
  if (/^\/Volumes\/[^/]+\//.test(executable)) return 'disk_image';
  const downloads = `${home.replace(/\/+$/, '')}/Downloads/`;
  if (executable.startsWith(downloads)) return 'downloads';
  return 'elsewhere';
}

const WHY: Record<MoveOffer['place'], string> = {
  translocated:
    'macOS is running Rein from a temporary, read-only copy of the download (App Translocation), which is gone when Rein quits.',
  disk_image: 'Rein is running from its disk image (or another volume), which goes away when it is ejected.',
  downloads: 'Rein is running from your Downloads folder.',
  elsewhere: 'Rein is running from outside the Applications folder.',
};

export function moveToApplicationsDecision(input: MoveInput): MoveDecision {
  if (input.platform !== 'darwin') return { offer: false, why: 'not_macos' };
  if (!input.packaged) return { offer: false, why: 'not_packaged' };
  const place = appPlace(input.executable, input.inApplicationsFolder, input.home);
  if (place === 'applications') return { offer: false, why: 'in_applications' };
  const temporary = place === 'translocated' || place === 'disk_image';
  if (!temporary && input.declined) return { offer: false, why: 'declined' };
  const consequence = temporary
    ? 'Until it is moved, Rein cannot make scheduled runs or start at login: they would point at a copy that disappears.'
    : 'Scheduled runs and "Open at login" remember where Rein is; if you move or delete it later, they stop working.';
  return {
    offer: true,
    prompt: {
      place,
      temporary,
      title: 'Move Rein to Applications?',
      message: 'Move Rein to the Applications folder?',
      detail: [
        WHY[place],
        consequence,
        `Rein will restart from the Applications folder. (Now: ${bundleOf(input.executable)})`,
      ].join('\n\n'),
      buttons: ['Move to Applications', temporary ? 'Not now' : 'Keep it here'],
      defaultId: 0,
      cancelId: 1,
      ...(temporary ? {} : { checkboxLabel: 'Don’t ask again' }),
    },
  };
}
