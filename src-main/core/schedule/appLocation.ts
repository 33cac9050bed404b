/**
 * Where the desktop app runs from, as far as launchd jobs care. A job records the path of the program
 * it starts, so a job made by an app that macOS runs from a temporary place stops working as soon as
 * that place goes:
 *
 * - **App Translocation**: an app opened straight from a download (quarantined, not moved by Finder)
 *   runs from a random read-only copy, `/private/var/folders/…/AppTranslocation/<uuid>/d/Rein.app`,
 *   which is gone when it quits;
 * - **the disk image**: `/Volumes/Rein 1.2.3/Rein.app` is gone when the DMG is ejected.
 *
 * Pure functions over the executable's path, so every face (CLI, tools, the daemon's API, the app)
 * refuses the same way and the rule is tested without a Mac.
 */

/** The app's bundle identifier (electron-builder.yml `appId`): plists name it so Login Items shows "Rein". */
export const REIN_BUNDLE_ID = 'dev.rein.app';

export type AppLocationProblem = { kind: 'translocated' | 'disk_image'; message: string };

/** The `.app` bundle an executable inside `Contents/MacOS/` belongs to, or undefined. */
export function appBundleOf(executable: string): string | undefined {
  const m = /^(.*?\.app)\/Contents\/MacOS\/[^/]+$/.exec(executable);
  return m?.[1];
}

/**
 * Why schedules cannot be installed by the app at `executable`, or undefined when its place lasts.
 * Only for the packaged app's own executable: a CLI or node kept on an external volume is the user's
 * choice and stays there.
 */
export function appLocationProblem(executable: string): AppLocationProblem | undefined {
  const bundle = appBundleOf(executable) ?? executable;
  if (/\/AppTranslocation\//.test(executable)) {
    return {
      kind: 'translocated',
      message:
        `Rein is running from a temporary copy macOS made of it (App Translocation: ${bundle}), which is gone when Rein quits, so a scheduled run could not start. ` +
        'Move Rein to Applications first (drag Rein.app into the Applications folder), open it from there, then make the schedule.',
    };
  }
  if (/^\/Volumes\/[^/]+\//.test(executable) && appBundleOf(executable) !== undefined) {
    return {
      kind: 'disk_image',
      message:
        `Rein is running from its disk image or another volume (${bundle}), which can be ejected, so a scheduled run could not start. ` +
        'Move Rein to Applications first (drag Rein.app into the Applications folder), open it from there, then make the schedule.',
    };
  }
  return undefined;
}
