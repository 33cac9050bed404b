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
import {
  DESKTOP_NAVIGATE_CHANNEL,
  DesktopSettings,
  DesktopSettingsPatch,
  type DesktopView,
} from '../core/api/desktopApi.js';
import {
  REIN_EVENT_CHANNEL,
  reinOperationNames,
  type MacPermissionName,
  type ReinSettings,
} from '../core/api/index.js';
import { startDaemon, type DaemonHandle, type DaemonOptions } from '../core/daemon/daemon.js';
import { DesktopActivity } from '../core/desktop/activity.js';
import { clearLegacyApiKey, migrateLegacyApiKey, type StringCipher } from '../core/desktop/apiKeyStore.js';
import { keyWriteTarget, removeStoredApiKey, resolveApiKey, storeApiKey } from '../core/secrets/apiKey.js';
import { contentSecurityPolicy } from '../core/desktop/csp.js';
import { loadDesktopSettings, updateDesktopSettings, desktopSettingsFile } from '../core/config/desktopSettings.js';
import { notificationFor, type NotificationContent } from '../core/desktop/notifications.js';
import { createDesktopReinApi, type DesktopReinApi } from '../core/desktop/desktopApi.js';
import type { ReinService } from '../core/service/reinService.js';
import { desktopMcpTokenStores } from '../core/desktop/mcpTokenStore.js';
import { DisposableStore, type AsyncDisposable } from '../core/base/lifecycle.js';
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
import { OpenAtLogin } from '../core/desktop/openAtLogin.js';
import { apiKeySettings, desktopSettingsView } from '../core/desktop/settingsView.js';
import { keyHint } from '../core/service/settings.js';
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

export interface DesktopApp extends AsyncDisposable {
  /** Undefined when the daemon could not start (the tray then shows the error). */
  readonly daemon: DaemonHandle | undefined;
  /** The service the window and the daemon's faces share; there when only the daemon's faces failed (a taken port). */
  readonly service: ReinService | undefined;
  readonly activity: DesktopActivity;
  /** The chat window (created on first need in GUI mode). */
  window(): BrowserWindow | undefined;
  show(view?: DesktopView): void;
  toggle(): void;
  dispose(): Promise<void>;
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
  const state = await loadStartState(opts.home, cipher, env, (problem) => {
    activity.reportError(problem);
    warn(problem);
  });

  // ---- the window and the native faces (not in headless runs) --------------------------------------
  // A notification that goes nowhere is logged and put on the tray icon (its badge and tooltip) instead.
  const later: { refreshTray?: () => void } = {};
  const windows = windowControl(opts, platform, warn, logFile, () => {
    // Opening the window is how a person sees an error: the icon goes back to what is happening.
    activity.acknowledgeError();
    later.refreshTray?.();
  });
  const { show, toggle, chatFocused } = windows;
  const undelivered = (content: NotificationContent, reason: string): void => {
    warn(`a notification could not be shown (${reason}): ${content.title} — ${content.body}`);
    activity.reportError(`${content.title}: ${content.body}`);
    later.refreshTray?.();
  };
  const notifier = new Notifier(
    () => state.settings.notifications,
    (content) => show(content.opens),
    undelivered,
  );
  // Without a window there is nothing for a click to open.
  const headlessNotifier = new Notifier(
    () => state.settings.notifications,
    () => undefined,
  );
  const dialogFace = createDialogApprovalFace({
    chatFocused,
    dialogsEnabled: () => state.settings.approval_dialogs,
    notify: (content) => notifier.show(content),
  });

  // MCP sign-ins go to the keychain-sealed store (plain 0600 files, said in the log, when it cannot encrypt).
  const mcpTokens = await desktopMcpTokenStores(cipher, warn);

  // ---- the daemon ------------------------------------------------------------------------------------
  const { daemon, service, daemonProblem } = await startInProcessDaemon(opts, {
    env,
    warn,
    mcpTokenStores: mcpTokens.stores,
    // For runs of a person at this Mac, the native dialog races the desk (the window's card, browsers).
    // Headless, no window shows what happens: alerts, schedules and waiting approvals notify from here.
    ...(opts.headless
      ? { notifications: async (n) => void headlessNotifier.show({ ...n, opens: 'sessions' }) }
      : { presentFaces: () => [dialogFace] }),
  });
  if (daemonProblem) {
    activity.reportError(daemonProblem);
    warn(daemonProblem);
  }

  if (opts.headless) {
    return {
      daemon,
      service,
      activity,
      window: () => undefined,
      show: () => undefined,
      toggle: () => undefined,
      dispose: async () => {
        await daemon?.dispose();
        await service?.dispose();
        headlessNotifier.dispose();
      },
    };
  }

  // Everything the app made, torn down in reverse order on dispose (before the daemon).
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
  const applyHotkey = (accelerator: string): void => setHotkey(hotkey, accelerator, tray, notifier, warn);
  applyHotkey(state.settings.hotkey);

  const applyDock = (visible: boolean): void => setDockIcon(platform, visible);
  applyDock(state.settings.show_dock_icon);

  const openAtLogin = openAtLoginOf(platform, opts.packaged === true, env, warn);

  const reportProblem = (problem: string): void => {
    activity.reportError(problem);
    refreshTray();
    warn(problem);
  };
  if (service) syncSchedulesAtStart(service, reportProblem);

  // Updates (signed builds only; electron/updater.ts, core/desktop/updates.ts). The first launch of a new
  // version syncs the schedules' launchd jobs again once the app has settled.
  const updates: Promise<AppUpdates | undefined> = startAppUpdates({
    home: opts.home,
    platform,
    packaged: opts.packaged === true,
    env,
    enabled: () => state.settings.auto_update,
    warn,
    onUpdated: async () => {
      const problem = service ? syncProblem(await service.schedules().sync()) : undefined;
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
  const trusted = ourTopFrame(() => new Set(windows.current() ? [windows.current()!.webContents] : []), isAppPage);
  const faces = settingsFaces({
    home: opts.home,
    platform,
    env,
    state,
    hotkey,
    macPermissions: opts.macPermissions ?? new MacPermissions(platform),
    openAtLogin,
    applyHotkey,
    applyDock,
    service,
    daemonProblem,
  });
  // The window calls the service in this process: no HTTP, no token.
  const reinApi: DesktopReinApi = service
    ? createDesktopReinApi(service, faces.desktopPart)
    : unavailableService(daemonProblem ?? "Rein's daemon is not running");
  disposables.add(registerReinHandlers(trusted, reinApi));
  disposables.add(registerDesktopHandlers(trusted, faces.desktopService));

  // ---- the daemon's events: to the page, the tray and the notifications -------------------------------
  if (service) {
    // The app is a client of its own service: unattended runs may send their questions here.
    disposables.add(service.attachClient('desktop'));
    const subscription = service.subscribe((entry) => {
      windows.current()?.webContents.send(REIN_EVENT_CHANNEL, entry.event);
      const note = activity.observe(entry.event);
      refreshTray();
      const content = note && notificationFor(note, { chatFocused: chatFocused() });
      if (content) notifier.show(content);
    });
    disposables.add(subscription);
  }
  disposables.add(notifier);

  windows.ensure(!opts.startHidden);

  let closing: Promise<void> | undefined;
  return {
    daemon,
    service,
    activity,
    window: windows.current,
    show,
    toggle,
    dispose: () =>
      (closing ??= (async () => {
        try {
          disposables.dispose();
        } catch (e) {
          warn(`while closing: ${errorMessage(e)}`);
        }
        await daemon?.dispose();
        await service?.dispose();
      })()),
  };
}

/**
 * The daemon inside this process. Headless (launchd), a daemon that cannot start ends the app; with a
 * window it stays up without one and says why (`daemonProblem`: the tray and every operation show it).
 */
async function startInProcessDaemon(
  opts: DesktopAppOptions,
  o: Pick<DaemonOptions, 'env' | 'warn' | 'mcpTokenStores' | 'notifications' | 'presentFaces'>,
): Promise<{ daemon: DaemonHandle | undefined; service: ReinService | undefined; daemonProblem: string | undefined }> {
  // The service comes before any face and the window is its peer: when only the daemon's faces cannot
  // start (its port is taken), the window still works on the service and the problem is on the tray.
  let service: ReinService | undefined;
  try {
    const daemon = await (opts.startDaemon ?? startDaemon)({
      home: opts.home,
      serviceReady: (s) => void (service = s),
      version: opts.version,
      staticDir: opts.rendererDir,
      ...o,
      // An MCP server's sign-in page, asked for from the window or the web page: the user's browser.
      openUrl: (url) => {
        if (!openInBrowser(url.href)) throw new ReinError('invalid_input', `not a web page: ${url.href}`);
      },
    });
    return { daemon, service: daemon.service, daemonProblem: undefined };
  } catch (e) {
    const daemonProblem = `Rein's daemon could not start: ${errorMessage(e)}`;
    if (opts.headless) {
      await (service as ReinService | undefined)?.dispose();
      throw new ReinError('internal', daemonProblem, undefined, { cause: e });
    }
    return { daemon: undefined, service, daemonProblem };
  }
}

/** "Open at login", applied only when the person changes it, never at start (core/desktop/openAtLogin.ts), on Electron's login items. */
function openAtLoginOf(
  platform: NodeJS.Platform,
  packaged: boolean,
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): OpenAtLogin {
  return new OpenAtLogin({
    platform,
    packaged,
    system: {
      enabled: () => loginItemEnabled({ platform, env }),
      apply: (enabled) => applyLoginItem(enabled, { platform, env }),
    },
    placeProblem: () => appLocationProblem(process.execPath),
    warn,
  });
}

/** The Dock icon (macOS only) shown or hidden, as Settings says. */
function setDockIcon(platform: NodeJS.Platform, visible: boolean): void {
  if (platform !== 'darwin') return;
  if (visible) void app.dock?.show();
  else app.dock?.hide();
}

/** Registers the global shortcut; one that does nothing says so in the tray menu (until fixed), the log and a notification. */
function setHotkey(
  hotkey: GlobalHotkey,
  accelerator: string,
  tray: ReinTray,
  notifier: Notifier,
  warn: (message: string) => void,
): void {
  const status = hotkey.set(accelerator);
  const unavailable = !status.registered && accelerator !== '';
  // Honest status: a shortcut that does nothing says so in the tray menu (until fixed) and in Settings.
  tray.setNotices(
    unavailable
      ? [{ label: `Shortcut ${accelerator} is not available — choose another in Settings`, opens: 'settings' }]
      : [],
  );
  if (unavailable) {
    warn(`the global shortcut could not be registered: ${status.problem ?? accelerator}`);
    // Shown even with notifications off: the person chose this shortcut and it does nothing.
    notifier.show(
      { title: 'Rein’s shortcut is not available', body: status.problem ?? accelerator, opens: 'settings' },
      { force: true },
    );
  }
}

/** What the app's settings and key are as it starts (and change while it runs: Settings writes them). */
interface StartState {
  settings: DesktopSettings;
  /** Why desktop-settings.json could not be read (the defaults are used meanwhile). */
  settingsProblem: string | undefined;
  /** Why the old api-key.enc could not be moved into the key store. */
  keyProblem: string | undefined;
}

async function loadStartState(
  home: string,
  cipher: StringCipher,
  env: NodeJS.ProcessEnv,
  report: (problem: string) => void,
): Promise<StartState> {
  const state: StartState = { settings: DesktopSettings.parse({}), settingsProblem: undefined, keyProblem: undefined };
  // The key this app kept in api-key.enc before moves into the store every run reads (launchd jobs too).
  try {
    await migrateLegacyApiKey(home, cipher, env);
  } catch (e) {
    state.keyProblem = errorMessage(e);
    report(state.keyProblem);
  }
  try {
    state.settings = await loadDesktopSettings(home);
  } catch (e) {
    state.settingsProblem = errorMessage(e);
    report(state.settingsProblem);
  }
  return state;
}

/** The chat window, made on first need and again after it was destroyed; a view asked for before its page loaded waits for it. */
function windowControl(
  opts: DesktopAppOptions,
  platform: NodeJS.Platform,
  warn: (message: string) => void,
  logFile: string | undefined,
  onFocus: () => void,
) {
  let win: BrowserWindow | undefined;
  let pageLoaded = false;
  let pendingView: DesktopView | undefined;
  const alive = (w: BrowserWindow | undefined): w is BrowserWindow => w !== undefined && !w.isDestroyed();
  const chatFocused = () => alive(win) && win.isVisible() && win.isFocused();

  const ensure = (showWhenReady: boolean): BrowserWindow => {
    if (alive(win)) return win;
    pageLoaded = false;
    const created = createMainWindow({
      preloadPath: opts.preloadPath,
      pageUrl: opts.pageUrl,
      showWhenReady,
      platform,
      warn,
      logFile,
    });
    hideInsteadOfClosing(created, opts.isQuitting);
    created.webContents.on('did-finish-load', () => {
      pageLoaded = true;
      if (pendingView) created.webContents.send(DESKTOP_NAVIGATE_CHANNEL, pendingView);
      pendingView = undefined;
    });
    created.on('focus', onFocus);
    win = created;
    return created;
  };

  const show = (view?: DesktopView): void => {
    const w = ensure(true);
    if (w.isMinimized()) w.restore();
    w.show();
    w.focus();
    if (platform === 'darwin') app.focus({ steal: true });
    if (view) {
      if (pageLoaded) w.webContents.send(DESKTOP_NAVIGATE_CHANNEL, view);
      else pendingView = view;
    }
  };

  const toggle = (): void => {
    if (chatFocused()) win?.hide();
    else show();
  };

  return {
    ensure,
    show,
    toggle,
    chatFocused,
    current: (): BrowserWindow | undefined => (alive(win) ? win : undefined),
  };
}

/**
 * Schedules' launchd jobs follow the app: after a move or an update their plists name this executable
 * again, orphans go; from a translocated copy or the DMG nothing is written and the tray says why.
 */
function syncSchedulesAtStart(service: ReinService, report: (problem: string) => void): void {
  void service
    .schedules()
    .sync()
    .then(syncProblem, (e: unknown) => `Schedules could not be checked: ${errorMessage(e)}`)
    .then((problem) => {
      if (problem) report(problem);
    });
}

/** The window's Settings: its part of ReinSettings (key, hotkey, macOS permissions) and the desktop-only operations. */
function settingsFaces(o: {
  home: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  state: StartState;
  hotkey: GlobalHotkey;
  macPermissions: MacPermissions;
  openAtLogin: OpenAtLogin;
  applyHotkey: (accelerator: string) => void;
  applyDock: (visible: boolean) => void;
  service: ReinService | undefined;
  daemonProblem: string | undefined;
}) {
  const { home, platform, env, state, hotkey, macPermissions } = o;
  const desktopPart = {
    async read(): Promise<Partial<ReinSettings>> {
      const found = await resolveApiKey(env, home);
      const target = await keyWriteTarget(env, home);
      const mac = platform === 'darwin' ? (await macPermissions.statuses()).status : undefined;
      return {
        platform,
        api_key: apiKeySettings(found, target, state.keyProblem ?? found.problem),
        hotkey: state.settings.hotkey === '' ? null : state.settings.hotkey,
        ...(hotkey.status.problem && state.settings.hotkey !== '' ? { hotkey_problem: hotkey.status.problem } : {}),
        ...(mac ? { mac_permissions: mac } : {}),
      };
    },
    async save(part: { api_key?: string; hotkey?: string | null }): Promise<void> {
      if (part.hotkey !== undefined) {
        const patch = DesktopSettingsPatch.safeParse({ hotkey: part.hotkey ?? '' });
        if (!patch.success) {
          throw new ReinError('invalid_input', `hotkey: ${patch.error.issues[0]?.message ?? 'invalid'}`, {
            field: 'hotkey',
          });
        }
        await changeSettings(patch.data);
      }
      if (part.api_key !== undefined) {
        await storeApiKey(env, home, part.api_key.trim());
        state.keyProblem = undefined;
      }
    },
    openPermissionSettings: async (permission: MacPermissionName) => ({
      opened: await macPermissions.openSettings(permission),
    }),
  };

  async function changeSettings(patch: DesktopSettingsPatch): Promise<void> {
    state.settings = await updateDesktopSettings(home, patch);
    state.settingsProblem = undefined;
    if (patch.hotkey !== undefined) o.applyHotkey(state.settings.hotkey);
    if (patch.show_dock_icon !== undefined) o.applyDock(state.settings.show_dock_icon);
    if (patch.open_at_login !== undefined) await o.openAtLogin.apply(patch.open_at_login);
  }

  const settingsView = async () =>
    desktopSettingsView({
      settings: state.settings,
      hotkey: hotkey.status,
      target: await keyWriteTarget(env, home),
      file: desktopSettingsFile(home),
      loginItem: o.openAtLogin.status(state.settings.open_at_login !== undefined),
    });

  const desktopService: DesktopService = {
    desktopSettings: async () => {
      if (state.settingsProblem) throw new ReinError('config_invalid', state.settingsProblem);
      return settingsView();
    },
    updateDesktopSettings: async (patch) => {
      await changeSettings(patch);
      return settingsView();
    },
    // Runs then use ANTHROPIC_API_KEY from the environment Rein started with, if any.
    clearApiKey: async () => {
      const legacy = await clearLegacyApiKey(home);
      const removed = await removeStoredApiKey(env, home);
      state.keyProblem = undefined;
      return { removed: removed.length > 0 || legacy };
    },
    requestMacPermission: async ({ permission }) => ({ permission, status: await macPermissions.request(permission) }),
    // Only this window (behind the sender check) may confirm a permission-raising change asked for over the API.
    answerChange: async (input) => {
      if (!o.service) throw new ReinError('unavailable', o.daemonProblem ?? "Rein's daemon is not running");
      return o.service.answerChange(input, 'desktop');
    },
  };
  return { desktopPart, desktopService };
}

/** Enough of a key to recognise it by, never enough to use it (core/service/settings.ts). */
export { keyHint };

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
