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
import { notificationFor } from '../core/desktop/notifications.js';
import { createDesktopReinApi, type DesktopReinApi } from '../core/desktop/reinService.js';
import { desktopMcpTokenStores } from '../core/desktop/mcpTokenStore.js';
import { DisposableStore } from '../core/base/lifecycle.js';
import { ReinError, errorMessage } from '../core/errors.js';
import { syncProblem } from '../core/schedule/resync.js';
import { createDialogApprovalFace } from './approvalFace.js';
import { GlobalHotkey } from './hotkey.js';
import { isSamePage, ourTopFrame } from './ipc.js';
import { safeStorageCipher } from './keychain.js';
import { MacPermissions } from './macPermissions.js';
import { Notifier } from './notifier.js';
import { applyLoginItem } from './loginItem.js';
import { registerDesktopHandlers, registerReinHandlers, type DesktopService } from './reinHandlers.js';
import { ReinTray } from './tray.js';
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
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`rein: ${m}\n`));
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

  const notifier = new Notifier(
    () => settings.notifications,
    (content) => show(content.opens),
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
    const created = createMainWindow({ preloadPath: opts.preloadPath, pageUrl: opts.pageUrl, showWhenReady });
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
  const tray = new ReinTray(opts.trayIconDir, { open: show, quit: opts.quit }, activity.trayState());
  const refreshTray = () => tray.update(activity.trayState());
  disposables.add(tray);

  const hotkey = new GlobalHotkey(toggle);
  disposables.add(hotkey);
  const applyHotkey = (accelerator: string): void => {
    const status = hotkey.set(accelerator);
    if (!status.registered && accelerator !== '') {
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

  const applyOpenAtLogin = (enabled: boolean): void => {
    if (!opts.packaged) return;
    applyLoginItem(enabled, { platform, env }).catch((e: unknown) => warn(`"Open at login" could not be ${enabled ? 'turned on' : 'turned off'}: ${errorMessage(e)}`));
  };
  applyOpenAtLogin(settings.open_at_login);

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
    if (patch.open_at_login !== undefined) applyOpenAtLogin(settings.open_at_login);
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
