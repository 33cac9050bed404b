/**
 * The desktop app's composition root. It starts the daemon inside this process (the same daemon
 * `rein daemon` runs, with the native dialog as one more approval face of every run), then makes the
 * desktop a client of it: the window's IPC handlers call the same operations, the daemon's event bus
 * feeds the window, the tray icon and the notifications. Headless (launchd) runs stop after the daemon.
 *
 * Everything here is wiring; the decisions live in core/desktop (tray state, notifications, dialog
 * content, settings, key storage) where they are tested without Electron.
 */
import { join } from 'node:path';
import { app, session, type BrowserWindow } from 'electron';
import { DESKTOP_NAVIGATE_CHANNEL, DesktopSettings, DesktopSettingsPatch, type DesktopView } from '../core/api/desktopApi.js';
import { REIN_EVENT_CHANNEL, reinOperationNames, type MacPermissionName, type ReinSettings } from '../core/api/index.js';
import { startDaemon, type DaemonHandle, type DaemonOptions } from '../core/daemon/daemon.js';
import { DesktopActivity } from '../core/desktop/activity.js';
import { clearLegacyApiKey, migrateLegacyApiKey, type StringCipher } from '../core/desktop/apiKeyStore.js';
import { keyWriteTarget, removeStoredApiKey, resolveApiKey, storeApiKey } from '../core/secrets/apiKey.js';
import { contentSecurityPolicy } from '../core/desktop/csp.js';
import { loadDesktopSettings, updateDesktopSettings, desktopSettingsFile } from '../core/config/desktopSettings.js';
import { notificationFor, type NotificationContent } from '../core/desktop/notifications.js';
import { createDesktopReinApi, type DesktopReinApi } from '../core/desktop/reinService.js';
import { desktopMcpTokenStores } from '../core/desktop/mcpTokenStore.js';
import { DisposableStore } from '../core/base/lifecycle.js';
import { ReinError, errorMessage } from '../core/errors.js';
import { syncProblem } from '../core/schedule/resync.js';
import { appLocationProblem } from '../core/schedule/appLocation.js';
import { createDialogApprovalFace } from './approvalFace.js';
import { GlobalHotkey } from './hotkey.js';
import { isSamePage, ourTopFrame } from './ipc.js';
import { safeStorageCipher } from './keychain.js';
import { MacPermissions } from './macPermissions.js';
import { Notifier } from './notifier.js';
import { applyLoginItem, loginItemEnabled } from './loginItem.js';
import { appLog, logWarn } from './appLog.js';
import { applyAppMenu } from './appMenu.js';
import { loginItemAvailability, loginItemChange } from '../core/desktop/loginItem.js';
import { logFileFor } from '../core/desktop/logFile.js';
import { registerDesktopHandlers, registerReinHandlers, type DesktopService } from './reinHandlers.js';
import { ReinTray } from './tray.js';
import { startAppUpdates, type AppUpdates } from './updater.js';
import { createMainWindow, hideInsteadOfClosing, openInBrowser, secureSession } from './window.js';

export interface DesktopAppOptions {
  home: string;
  version: string;
  /** Launchd runs: the daemon only, no window, tray, hotkey, dialogs or notifications. */
  headless: boolean;
  /** The page: a file: URL of the built renderer, or the dev server's URL. */
  pageUrl: string;
  /** Folder of the built renderer (file: reads are confined to it; the daemon serves it to browsers). */
  rendererDir: string;
  preloadPath: string;
  /** Folder of the tray's template images. */
  trayIconDir: string;
  /** Set under `electron-vite dev`: the CSP then allows the dev server (and its hot-reload socket). */
  devServerOrigin?: string;
  /** True once the app is quitting: then closing the window really closes it. */
  isQuitting(): boolean;
  quit(): void;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  warn?: (message: string) => void;
  /** A packaged build: only then is "Open at login" applied (a development build is no login item). */
  packaged?: boolean;
  /** Launched at login: the menu bar only, no window until asked for. */
  startHidden?: boolean;
  /** Seams for tests. */
  startDaemon?: (opts: DaemonOptions) => Promise<DaemonHandle>;
  cipher?: StringCipher;
  macPermissions?: MacPermissions;
}

export interface DesktopApp {
  /** Undefined when the daemon could not start (the tray then shows the error). */
  readonly daemon: DaemonHandle | undefined;
  readonly activity: DesktopActivity;
  /** The chat window (created on first need in GUI mode). */
  window(): BrowserWindow | undefined;
  show(view?: DesktopView): void;
  toggle(): void;
  close(): Promise<void>;
}

export async function startDesktopApp(opts: DesktopAppOptions): Promise<DesktopApp> {
  const platform = opts.platform ?? process.platform;
  // Also into the log file (~/Library/Logs/Rein/rein.log): a Finder launch has no terminal for stderr.
  const warn = opts.warn ?? logWarn(appLog(platform, opts.env ?? process.env));
  const logFile = logFileFor(platform, opts.env ?? process.env);
  const activity = new DesktopActivity();
  const cipher = opts.cipher ?? safeStorageCipher(platform);
  // The key is never put into this environment: runs read ANTHROPIC_API_KEY from it, else the stored key
  // (core/secrets/apiKey.ts), which Settings writes, so a key saved later reaches the next run.
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env) };
  const key = { problem: undefined as string | undefined };

  // The key this app kept in api-key.enc before moves into the store every run reads (launchd jobs too).
  try {
    await migrateLegacyApiKey(opts.home, cipher, env);
  } catch (e) {
    key.problem = errorMessage(e);
    activity.reportError(key.problem);
    warn(key.problem);
  }

  let settings: DesktopSettings;
  let settingsProblem: string | undefined;
  try {
    settings = await loadDesktopSettings(opts.home);
  } catch (e) {
    settings = DesktopSettings.parse({});
    settingsProblem = errorMessage(e);
    activity.reportError(settingsProblem);
    warn(settingsProblem);
  }

  // ---- the window and the native faces (not in headless runs) --------------------------------------
  let win: BrowserWindow | undefined;
  let pageLoaded = false;
  let pendingView: DesktopView | undefined;
  const alive = (w: BrowserWindow | undefined): w is BrowserWindow => w !== undefined && !w.isDestroyed();
  const chatFocused = () => alive(win) && win.isVisible() && win.isFocused();

  // A notification that goes nowhere is logged and put on the tray icon (its badge and tooltip) instead.
  const later: { refreshTray?: () => void } = {};
  const undelivered = (content: NotificationContent, reason: string): void => {
    warn(`a notification could not be shown (${reason}): ${content.title} — ${content.body}`);
    activity.reportError(`${content.title}: ${content.body}`);
    later.refreshTray?.();
  };
  const notifier = new Notifier(
    () => settings.notifications,
    (content) => show(content.opens),
    undelivered,
  );
  // Without a window there is nothing for a click to open.
  const headlessNotifier = new Notifier(
    () => settings.notifications,
    () => undefined,
  );
  const dialogFace = createDialogApprovalFace({
    chatFocused,
    dialogsEnabled: () => settings.approval_dialogs,
    notify: (content) => notifier.show(content),
  });

  // MCP sign-ins go to the keychain-sealed store (plain 0600 files, said in the log, when it cannot encrypt).
  const mcpTokens = await desktopMcpTokenStores(cipher, warn);

  // ---- the daemon ------------------------------------------------------------------------------------
  let daemon: DaemonHandle | undefined;
  let daemonProblem: string | undefined;
  try {
    daemon = await (opts.startDaemon ?? startDaemon)({
      home: opts.home,
      env,
      version: opts.version,
      staticDir: opts.rendererDir,
      warn,
      mcpTokenStores: mcpTokens.stores,
      // An MCP server's sign-in page, asked for from the window or the web page: the user's browser.
      openUrl: (url) => {
        if (!openInBrowser(url.href)) throw new ReinError('invalid_input', `not a web page: ${url.href}`);
      },
      // For runs of a person at this Mac, the native dialog races the desk (the window's card, browsers).
      // Headless, no window shows what happens: alerts, schedules and waiting approvals notify from here.
      ...(opts.headless ? { notifications: async (n) => void headlessNotifier.show({ ...n, opens: 'sessions' }) } : { presentFaces: () => [dialogFace] }),
    });
  } catch (e) {
    daemonProblem = `Rein's daemon could not start: ${errorMessage(e)}`;
    if (opts.headless) throw new ReinError('internal', daemonProblem, undefined, { cause: e });
    activity.reportError(daemonProblem);
    warn(daemonProblem);
  }

  if (opts.headless) {
    return {
      daemon,
      activity,
      window: () => undefined,
      show: () => undefined,
      toggle: () => undefined,
      close: async () => {
        await daemon?.close();
        headlessNotifier.dispose();
      },
    };
  }

  // Everything the app made, torn down in reverse order on close (before the daemon).
  const disposables = new DisposableStore();
  const isAppPage = isSamePage(opts.pageUrl);
  secureSession(session.defaultSession, {
    isAppPage,
    csp: contentSecurityPolicy({
      ...(daemon ? { daemonPort: daemon.info.port } : {}),
      ...(opts.devServerOrigin ? { devServerOrigin: opts.devServerOrigin } : {}),
    }),
    rendererDir: opts.rendererDir,
  });

  const ensureWindow = (showWhenReady: boolean): BrowserWindow => {
    if (alive(win)) return win;
    pageLoaded = false;
    const created = createMainWindow({ preloadPath: opts.preloadPath, pageUrl: opts.pageUrl, showWhenReady, platform, warn, logFile });
    hideInsteadOfClosing(created, opts.isQuitting);
    created.webContents.on('did-finish-load', () => {
      pageLoaded = true;
      if (pendingView) created.webContents.send(DESKTOP_NAVIGATE_CHANNEL, pendingView);
      pendingView = undefined;
    });
    // Opening the window is how a person sees an error: the icon goes back to what is happening.
    created.on('focus', () => {
      activity.acknowledgeError();
      refreshTray();
    });
    win = created;
    return created;
  };

  function show(view?: DesktopView): void {
    const w = ensureWindow(true);
    if (w.isMinimized()) w.restore();
    w.show();
    w.focus();
    if (platform === 'darwin') app.focus({ steal: true });
    if (view) {
      if (pageLoaded) w.webContents.send(DESKTOP_NAVIGATE_CHANNEL, view);
      else pendingView = view;
    }
  }

  const toggle = (): void => {
    if (chatFocused()) win?.hide();
    else show();
  };

  // ---- tray, hotkey, dock ----------------------------------------------------------------------------
  const checkForUpdates = () => void updates.then((u) => u?.checkFromMenu());
  const tray = new ReinTray(opts.trayIconDir, { open: show, quit: opts.quit, checkForUpdates }, activity.trayState());
  const refreshTray = () => tray.update(activity.trayState());
  later.refreshTray = refreshTray;
  disposables.add(tray);
  // No DevTools or Reload in a packaged build's menu (Electron's default menu has both).
  applyAppMenu(platform, opts.packaged === true);

  const hotkey = new GlobalHotkey(toggle);
  disposables.add(hotkey);
  const applyHotkey = (accelerator: string): void => {
    const status = hotkey.set(accelerator);
    const unavailable = !status.registered && accelerator !== '';
    // Honest status: a shortcut that does nothing says so in the tray menu (until fixed) and in Settings.
    tray.setNotices(unavailable ? [{ label: `Shortcut ${accelerator} is not available — choose another in Settings`, opens: 'settings' }] : []);
    if (unavailable) {
      warn(`the global shortcut could not be registered: ${status.problem ?? accelerator}`);
      // Shown even with notifications off: the person chose this shortcut and it does nothing.
      notifier.show({ title: 'Rein’s shortcut is not available', body: status.problem ?? accelerator, opens: 'settings' }, { force: true });
    }
  };
  applyHotkey(settings.hotkey);

  const applyDock = (visible: boolean): void => {
    if (platform !== 'darwin') return;
    if (visible) void app.dock?.show();
    else app.dock?.hide();
  };
  applyDock(settings.show_dock_icon);

  // "Open at login" is applied only when the person changes it (onboarding asks, Settings has the
  // switch), never at start: a login item removed in System Settings is not added back, and macOS shows
  // no "Login Item Added" nobody asked for. Off until the person chooses.
  const loginAvailability = loginItemAvailability(platform, opts.packaged === true);
  let loginProblem: string | undefined;
  const systemLoginItem = (): boolean => {
    if (!loginAvailability.available) return false;
    try {
      return loginItemEnabled({ platform, env });
    } catch {
      return false;
    }
  };
  const applyOpenAtLogin = async (enabled: boolean): Promise<void> => {
    loginProblem = undefined;
    if (!loginAvailability.available) return;
    const change = loginItemChange(systemLoginItem(), enabled);
    if (change === 'none') return;
    // A login item must not point at a copy that goes away (App Translocation, the disk image).
    const place = change === 'add' ? appLocationProblem(process.execPath) : undefined;
    if (place) {
      loginProblem = place.message.replace('a scheduled run could not start', 'it could not start at login').replace('then make the schedule', 'then turn this on');
      warn(loginProblem);
      return;
    }
    try {
      await applyLoginItem(enabled, { platform, env });
    } catch (e) {
      loginProblem = `"Open at login" could not be ${enabled ? 'turned on' : 'turned off'}: ${errorMessage(e)}`;
      warn(loginProblem);
    }
  };

  // Schedules' launchd jobs follow the app: after a move or an update their plists name this executable
  // again, orphans go; from a translocated copy or the DMG nothing is written and the tray says why.
  if (daemon) {
    void daemon.service
      .schedules()
      .sync()
      .then(syncProblem, (e: unknown) => `Schedules could not be checked: ${errorMessage(e)}`)
      .then((problem) => {
        if (!problem) return;
        activity.reportError(problem);
        refreshTray();
        warn(problem);
      });
  }

  // Updates (signed builds only; shell/updater.ts, core/desktop/updates.ts). The first launch of a new
  // version syncs the schedules' launchd jobs again once the app has settled.
  const updates: Promise<AppUpdates | undefined> = startAppUpdates({
    home: opts.home,
    platform,
    packaged: opts.packaged === true,
    env,
    enabled: () => settings.auto_update,
    warn,
    onUpdated: async () => {
      const problem = daemon ? syncProblem(await daemon.service.schedules().sync()) : undefined;
      if (problem) warn(problem);
    },
  }).then(
    (u) => disposables.add(u),
    (e: unknown) => {
      warn(`updates could not start: ${errorMessage(e)}`);
      return undefined;
    },
  );

  // ---- IPC ------------------------------------------------------------------------------------------
  const trusted = ourTopFrame(() => new Set(alive(win) ? [win.webContents] : []), isAppPage);
  const macPermissions = opts.macPermissions ?? new MacPermissions(platform);

  const desktopPart = {
    async read(): Promise<Partial<ReinSettings>> {
      const found = await resolveApiKey(env, opts.home);
      const target = await keyWriteTarget(env, opts.home);
      const mac = platform === 'darwin' ? (await macPermissions.statuses()).status : undefined;
      const problem = key.problem ?? found.problem;
      return {
        platform,
        api_key: {
          present: Boolean(found.key),
          source: found.source ?? null,
          ...(found.key ? { hint: keyHint(found.key) } : {}),
          ...(problem ? { problem } : {}),
          note: target.store.encrypted
            ? `Kept in ${target.store.where}, where the CLI and scheduled runs find it too.`
            : `Kept in ${target.store.where}, readable only by you but not encrypted (no system keychain${target.fallbackReason ? `: ${target.fallbackReason}` : ''}).`,
        },
        hotkey: settings.hotkey === '' ? null : settings.hotkey,
        ...(hotkey.status.problem && settings.hotkey !== '' ? { hotkey_problem: hotkey.status.problem } : {}),
        ...(mac ? { mac_permissions: mac } : {}),
      };
    },
    async save(part: { api_key?: string; hotkey?: string | null }): Promise<void> {
      if (part.hotkey !== undefined) {
        const patch = DesktopSettingsPatch.safeParse({ hotkey: part.hotkey ?? '' });
        if (!patch.success) {
          throw new ReinError('invalid_input', `hotkey: ${patch.error.issues[0]?.message ?? 'invalid'}`, { field: 'hotkey' });
        }
        await changeSettings(patch.data);
      }
      if (part.api_key !== undefined) {
        await storeApiKey(env, opts.home, part.api_key.trim());
        key.problem = undefined;
      }
    },
    openPermissionSettings: async (permission: MacPermissionName) => ({ opened: await macPermissions.openSettings(permission) }),
  };

  async function changeSettings(patch: DesktopSettingsPatch): Promise<void> {
    settings = await updateDesktopSettings(opts.home, patch);
    settingsProblem = undefined;
    if (patch.hotkey !== undefined) applyHotkey(settings.hotkey);
    if (patch.show_dock_icon !== undefined) applyDock(settings.show_dock_icon);
    if (patch.open_at_login !== undefined) await applyOpenAtLogin(patch.open_at_login);
  }

  const settingsView = async () => {
    const target = await keyWriteTarget(env, opts.home);
    return {
      settings,
      hotkey: hotkey.status,
      key_storage: {
        available: true,
        store: target.store.kind,
        location: target.store.where,
        plain_text: !target.store.encrypted,
        ...(target.fallbackReason ? { problem: target.fallbackReason } : {}),
      },
      file: desktopSettingsFile(opts.home),
      login_item: {
        available: loginAvailability.available,
        enabled: systemLoginItem(),
        chosen: settings.open_at_login !== undefined,
        ...(loginProblem ? { problem: loginProblem } : !loginAvailability.available ? { problem: loginAvailability.problem } : {}),
      },
    };
  };

  const desktopService: DesktopService = {
    desktopSettings: async () => {
      if (settingsProblem) throw new ReinError('config_invalid', settingsProblem);
      return settingsView();
    },
    updateDesktopSettings: async (patch) => {
      await changeSettings(patch);
      return settingsView();
    },
    // Runs then use ANTHROPIC_API_KEY from the environment Rein started with, if any.
    clearApiKey: async () => {
      const legacy = await clearLegacyApiKey(opts.home);
      const removed = await removeStoredApiKey(env, opts.home);
      key.problem = undefined;
      return { removed: removed.length > 0 || legacy };
    },
    requestMacPermission: async ({ permission }) => ({ permission, status: await macPermissions.request(permission) }),
    // Only this window (behind the sender check) may confirm a permission-raising change asked for over the API.
    answerChange: async (input) => {
      if (!daemon) throw new ReinError('unavailable', daemonProblem ?? "Rein's daemon is not running");
      return daemon.service.answerChange(input, 'desktop');
    },
  };

  // The window calls the service in this process: no HTTP, no token.
  const reinApi: DesktopReinApi = daemon ? createDesktopReinApi(daemon.service, desktopPart) : unavailableService(daemonProblem ?? "Rein's daemon is not running");
  disposables.add(registerReinHandlers(trusted, reinApi));
  disposables.add(registerDesktopHandlers(trusted, desktopService));

  // ---- the daemon's events: to the page, the tray and the notifications -------------------------------
  if (daemon) {
    // The app is a client of its own daemon: unattended runs may send their questions here.
    disposables.add(daemon.service.attachClient('desktop'));
    const subscription = daemon.service.subscribe((entry) => {
      if (alive(win)) win.webContents.send(REIN_EVENT_CHANNEL, entry.event);
      const note = activity.observe(entry.event);
      refreshTray();
      const content = note && notificationFor(note, { chatFocused: chatFocused() });
      if (content) notifier.show(content);
    });
    disposables.add(subscription);
  }
  disposables.add(notifier);

  ensureWindow(!opts.startHidden);

  let closing: Promise<void> | undefined;
  return {
    daemon,
    activity,
    window: () => (alive(win) ? win : undefined),
    show,
    toggle,
    close: () =>
      (closing ??= (async () => {
        try {
          disposables.dispose();
        } catch (e) {
          warn(`while closing: ${errorMessage(e)}`);
        }
        await daemon?.close();
      })()),
  };
}

/** Enough of a key to recognise it by, never enough to use it. */
export function keyHint(key: string): string {
  return key.length > 16 ? `${key.slice(0, 7)}…${key.slice(-4)}` : `…${key.slice(-2)}`;
}

/** Every operation fails with the same clear reason while there is no daemon to answer. */
function unavailableService(reason: string): DesktopReinApi {
  const service: Record<string, () => Promise<never>> = {};
  for (const name of reinOperationNames) {
    service[name] = async () => {
      throw new ReinError('unavailable', reason);
    };
  }
  return service as unknown as DesktopReinApi;
}

/** Where the tray's images are, beside the app (resources/tray). */
export const trayIconDirOf = (appPath: string): string => join(appPath, 'resources', 'tray');
