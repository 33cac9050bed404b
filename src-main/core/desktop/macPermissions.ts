/**
 * The three macOS privacy permissions Rein's GUI tools need, and the System Settings pane of each. The
 * shell opens these panes with `shell.openExternal`; `isSettingsPaneUrl` keeps that call to exactly
 * these URLs, so no other `x-apple.systempreferences:` link (or any other scheme) can be opened.
 * Names match MacPermissionName of the ReinApi contract; `authType` is node-mac-permissions' name.
 *
 * Automation (Apple Events) is granted per target app, not once: macOS asks the first time Rein controls
 * an app. Its status here is the one for System Events (`AUTOMATION_PROBE_BUNDLE_ID`), through which
 * Rein's AppleScript reaches the keyboard and other apps' menus; its pane lists every app granted.
 */
export const AUTOMATION_PROBE_BUNDLE_ID = 'com.apple.systemevents';

export const MAC_PERMISSIONS = {
  accessibility: {
    authType: 'accessibility',
    label: 'Accessibility',
    why: 'to read and operate other apps’ windows',
    settingsUrl: 'x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility',
  },
  automation: {
    authType: 'apple-events',
    label: 'Automation',
    why: 'to script other apps (System Events, then each app the first time)',
    settingsUrl: 'x-apple.systempreferences:com.apple.preference.security?Privacy_Automation',
  },
  screen_recording: {
    authType: 'screen',
    label: 'Screen Recording',
    why: 'to take screenshots of the screen for the model',
    settingsUrl: 'x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture',
  },
} as const;

export type MacPermission = keyof typeof MAC_PERMISSIONS;
export const MAC_PERMISSION_NAMES = Object.keys(MAC_PERMISSIONS) as MacPermission[];

/** As node-mac-permissions reports it; `unavailable` when the module cannot be used (not macOS, not installed). */
export type MacPermissionStatus = 'authorized' | 'denied' | 'restricted' | 'not determined' | 'unavailable';

export function isSettingsPaneUrl(url: string): boolean {
  return MAC_PERMISSION_NAMES.some((name) => MAC_PERMISSIONS[name].settingsUrl === url);
}
