/**
 * electron-updater behind core/desktop/updates.ts: this file only adapts its events, asks its two
 * questions (restart now? / what a manual check found) and finds how the running app is signed. The
 * rules (which builds update, when, how often) are the controller's. The feed is the one packed into the
 * app at build time (`publish` in electron-builder.yml → resources/app-update.yml): GitHub releases, or a
 * generic URL chosen at build time; nothing at run time can point a shipped Rein at another feed.
 */
import { dirname } from 'node:path';
import { app, dialog } from 'electron';
import type { AppUpdater } from 'electron-updater';
import type { Disposable } from '../core/base/lifecycle.js';
import { errorMessage } from '../core/errors.js';
import { runProcess } from '../core/process/subprocess.js';
import {
  UpdateController,
  noteRunningVersion,
  parseCodesignDisplay,
  readBuildInfo,
  updateEligibility,
  type MacSignature,
  type ManualCheckResult,
  type UpdaterEvent,
  type UpdaterPort,
} from '../core/desktop/updates.js';

/** The launch-time schedule sync runs first; this one follows it. */
export const RESYNC_AFTER_UPDATE_DELAY_MS = 10_000;

export interface AppUpdatesOptions {
  home: string;
  platform: NodeJS.Platform;
  packaged: boolean;
  env: NodeJS.ProcessEnv;
  /** The Settings switch. */
  enabled(): boolean;
  /** The first launch of a new version: re-sync the schedules' launchd jobs. */
  onUpdated(from: string, to: string): Promise<void>;
  warn(message: string): void;
  /** Seams for tests. */
  loadUpdater?: () => Promise<AppUpdater>;
  macSignature?: () => Promise<MacSignature>;
  /** How long after start the first launch of a new version re-syncs the schedules (tests: 0). */
  resyncDelayMs?: number;
  /** Where rein-build.json is (the app's resources folder). */
  resourcesDir?: string;
}

export interface AppUpdates extends Disposable {
  readonly controller: UpdateController;
  /** The tray's "Check for Updates…": checks, then says what it found in a message box. */
  checkFromMenu(): Promise<ManualCheckResult>;
}

export async function startAppUpdates(opts: AppUpdatesOptions): Promise<AppUpdates> {
  const version = app.getVersion();
  // After the launch-time sync (desktopApp.ts) has had its turn: two syncs never run at once.
  let resync: ReturnType<typeof setTimeout> | undefined;
  try {
    const { updatedFrom } = await noteRunningVersion(opts.home, version);
    if (updatedFrom) {
      opts.warn(`updated from ${updatedFrom} to ${version}: the schedules' launchd jobs are re-synced`);
      resync = setTimeout(() => {
        opts
          .onUpdated(updatedFrom, version)
          .catch((e: unknown) => opts.warn(`after the update, schedules could not be re-synced: ${errorMessage(e)}`));
      }, opts.resyncDelayMs ?? RESYNC_AFTER_UPDATE_DELAY_MS);
      resync.unref?.();
    }
  } catch (e) {
    opts.warn(`could not record the running version: ${errorMessage(e)}`);
  }

  const eligibility = updateEligibility({
    packaged: opts.packaged,
    platform: opts.platform,
    ...(opts.platform === 'darwin' && opts.packaged
      ? { macSignature: await (opts.macSignature ?? (() => bundleSignature(process.execPath)))() }
      : {}),
    ...(opts.env['APPIMAGE'] ? { appImage: opts.env['APPIMAGE'] } : {}),
    ...(opts.packaged ? { build: await readBuildInfo(opts.resourcesDir ?? process.resourcesPath) } : {}),
  });

  // electron-updater is loaded only for a build that may update (it reads app-update.yml at once).
  const port: UpdaterPort = eligibility.eligible
    ? adapt(await (opts.loadUpdater ?? loadElectronUpdater)(), opts.warn)
    : inertPort;
  const controller = new UpdateController({
    updater: port,
    eligibility,
    enabled: opts.enabled,
    log: opts.warn,
    askToRestart: async (v) => {
      const { response } = await dialog.showMessageBox({
        type: 'info',
        title: 'Rein update',
        message: `Rein ${v} is ready`,
        detail:
          'Restart Rein now to use it, or keep working: it is installed when you quit Rein. Runs in progress are stopped by a restart.',
        buttons: ['Restart Now', 'Later'],
        defaultId: 1,
        cancelId: 1,
      });
      return response === 0 ? 'restart' : 'later';
    },
  });
  controller.start();

  return {
    controller,
    async checkFromMenu() {
      const result = await controller.checkNow();
      if (result.outcome === 'ready') {
        const { response } = await dialog.showMessageBox({
          type: 'info',
          message: `Rein ${result.version} is ready`,
          detail: 'Restart Rein now to use it, or it is installed when you quit Rein.',
          buttons: ['Restart Now', 'Later'],
          defaultId: 1,
          cancelId: 1,
        });
        if (response === 0) controller.restartNow();
        return result;
      }
      await dialog.showMessageBox({
        type: result.outcome === 'failed' ? 'warning' : 'info',
        ...manualCheckText(result),
        buttons: ['OK'],
      });
      return result;
    },
    dispose: () => {
      if (resync) clearTimeout(resync);
      controller.dispose();
    },
  };
}

/** What the message box after "Check for Updates…" says. */
export function manualCheckText(result: ManualCheckResult): { message: string; detail: string } {
  switch (result.outcome) {
    case 'not-eligible':
      return { message: 'This copy of Rein does not update itself', detail: `Because ${result.reason}.` };
    case 'up-to-date':
      return { message: 'Rein is up to date', detail: `You have Rein ${app.getVersion()}, the newest version.` };
    case 'downloading':
      return {
        message: `Rein ${result.version} is downloading`,
        detail: 'Rein asks you to restart when it is ready; otherwise it is installed when you quit Rein.',
      };
    case 'ready':
      return { message: `Rein ${result.version} is ready`, detail: 'It is installed when you quit Rein.' };
    case 'failed':
      return { message: 'Rein could not check for updates', detail: result.message };
  }
}

async function loadElectronUpdater(): Promise<AppUpdater> {
  const mod = (await import('electron-updater')) as unknown as {
    autoUpdater?: AppUpdater;
    default?: { autoUpdater: AppUpdater };
  };
  const updater = mod.autoUpdater ?? mod.default?.autoUpdater;
  if (!updater) throw new Error('electron-updater has no autoUpdater');
  return updater;
}

/** Downloads in the background, installs at quit; its log lines go to Rein's. */
function adapt(updater: AppUpdater, warn: (m: string) => void): UpdaterPort {
  updater.autoDownload = true;
  updater.autoInstallOnAppQuit = true;
  updater.allowPrerelease = false;
  updater.logger = {
    info: () => undefined,
    debug: () => undefined,
    warn: (m: unknown) => warn(`updater: ${String(m)}`),
    error: (m: unknown) => warn(`updater: ${String(m)}`),
  };
  return {
    checkForUpdates: () => updater.checkForUpdates(),
    quitAndInstall: () => updater.quitAndInstall(false, true),
    onEvent(listener: (e: UpdaterEvent) => void): Disposable {
      const handlers: [string, (...args: never[]) => void][] = [
        ['checking-for-update', () => listener({ type: 'checking' })],
        ['update-available', (info: { version: string }) => listener({ type: 'available', version: info.version })],
        [
          'update-not-available',
          (info: { version?: string }) =>
            listener({ type: 'not-available', ...(info?.version ? { version: info.version } : {}) }),
        ],
        ['download-progress', (p: { percent: number }) => listener({ type: 'progress', percent: p.percent })],
        ['update-downloaded', (info: { version: string }) => listener({ type: 'downloaded', version: info.version })],
        ['error', (e: Error) => listener({ type: 'error', message: errorMessage(e) })],
      ];
      const emitter = updater as unknown as {
        on(n: string, f: (...a: never[]) => void): void;
        off(n: string, f: (...a: never[]) => void): void;
      };
      for (const [name, fn] of handlers) emitter.on(name, fn);
      return { dispose: () => handlers.forEach(([name, fn]) => emitter.off(name, fn)) };
    },
  };
}

const inertPort: UpdaterPort = {
  checkForUpdates: async () => undefined,
  quitAndInstall: () => undefined,
  onEvent: () => ({ dispose: () => undefined }),
};

/**
 * How the running app is signed: `codesign -dv` on its bundle (…/Rein.app, three levels above the
 * executable in Contents/MacOS). A failure to run codesign counts as unsigned: no update then.
 */
export async function bundleSignature(execPath: string): Promise<MacSignature> {
  const bundle = dirname(dirname(dirname(execPath)));
  const r = await runProcess({
    file: '/usr/bin/codesign',
    args: ['--display', '--verbose=2', bundle],
    timeoutMs: 15_000,
  });
  if (r.kind === 'spawn_failed') return 'unsigned';
  return parseCodesignDisplay(`${r.stdout}\n${r.stderr}`, r.exitCode);
}
