/**
 * macOS privacy permissions (Accessibility, Screen Recording) through node-mac-permissions, an
 * optional native module loaded only on macOS and only when asked: elsewhere, or when it is not
 * installed, every permission reads `unavailable` with the reason. System Settings panes open through
 * `shell.openExternal`, restricted to the exact pane URLs of core/desktop/macPermissions.
 */
import { shell } from 'electron';
import type { MacPermissionStatus } from '../core/api/desktopApi.js';
import type { MacPermissionName } from '../core/api/index.js';
import {
  AUTOMATION_PROBE_BUNDLE_ID,
  isSettingsPaneUrl,
  MAC_PERMISSIONS,
  MAC_PERMISSION_NAMES,
} from '../core/desktop/macPermissions.js';
import { errorMessage } from '../core/errors.js';

/** The part of node-mac-permissions Rein uses (`askForAppleEventsAccess` only in its newer versions). */
export interface MacPermissionsModule {
  getAuthStatus(type: 'accessibility' | 'screen'): string;
  askForAccessibilityAccess(): void;
  askForScreenCaptureAccess(): void;
  /** Automation of one app: with `shouldPrompt` false it only reads the status. */
  askForAppleEventsAccess?(targetAppBundleId: string, shouldPrompt?: boolean): Promise<string>;
}

export type ModuleImporter = (specifier: string) => Promise<unknown>;

// A variable specifier: neither TypeScript nor the bundler resolves it, so the app builds and runs
// where the optional module is not installed.
const MODULE_NAME = 'node-mac-permissions';
const importModule: ModuleImporter = (specifier) => import(specifier);

const STATUSES = new Set<MacPermissionStatus>(['authorized', 'denied', 'restricted', 'not determined']);

export class MacPermissions {
  #loaded: Promise<{ module?: MacPermissionsModule; reason?: string }> | undefined;

  constructor(
    private readonly platform: NodeJS.Platform = process.platform,
    private readonly importer: ModuleImporter = importModule,
  ) {}

  /** Status of each permission, by the names of the ReinApi contract. */
  async statuses(): Promise<{
    supported: boolean;
    reason?: string;
    status: Record<MacPermissionName, MacPermissionStatus>;
  }> {
    const { module, reason } = await this.#load();
    const status = {} as Record<MacPermissionName, MacPermissionStatus>;
    for (const name of MAC_PERMISSION_NAMES) status[name] = module ? await this.#statusOf(module, name) : 'unavailable';
    return { supported: module !== undefined, ...(reason ? { reason } : {}), status };
  }

  /** Asks macOS (its prompt, or Rein listed in System Settings) and reports the status afterwards. */
  async request(name: MacPermissionName): Promise<MacPermissionStatus> {
    const { module } = await this.#load();
    if (!module) return 'unavailable';
    if (name === 'automation') return this.#automation(module, true);
    if (name === 'accessibility') module.askForAccessibilityAccess();
    else module.askForScreenCaptureAccess();
    return this.#statusOf(module, name);
  }

  /** Opens the System Settings pane of the permission (macOS only). */
  async openSettings(name: MacPermissionName): Promise<boolean> {
    if (this.platform !== 'darwin') return false;
    const url = MAC_PERMISSIONS[name].settingsUrl;
    if (!isSettingsPaneUrl(url)) return false;
    await shell.openExternal(url);
    return true;
  }

  async #statusOf(module: MacPermissionsModule, name: MacPermissionName): Promise<MacPermissionStatus> {
    if (name === 'automation') return this.#automation(module, false);
    try {
      const s = module.getAuthStatus(
        MAC_PERMISSIONS[name].authType as 'accessibility' | 'screen',
      ) as MacPermissionStatus;
      return STATUSES.has(s) ? s : 'unavailable';
    } catch {
      return 'unavailable';
    }
  }

  /** Automation of System Events: read (or, asked, prompted) through askForAppleEventsAccess when the module has it. */
  async #automation(module: MacPermissionsModule, prompt: boolean): Promise<MacPermissionStatus> {
    if (typeof module.askForAppleEventsAccess !== 'function') return 'unavailable';
    try {
      const s = (await module.askForAppleEventsAccess(AUTOMATION_PROBE_BUNDLE_ID, prompt)) as MacPermissionStatus;
      return STATUSES.has(s) ? s : 'unavailable';
    } catch {
      return 'unavailable';
    }
  }

  #load(): Promise<{ module?: MacPermissionsModule; reason?: string }> {
    this.#loaded ??= (async () => {
      if (this.platform !== 'darwin') return { reason: 'macOS privacy permissions exist only on macOS' };
      try {
        const loaded = (await this.importer(MODULE_NAME)) as MacPermissionsModule & { default?: MacPermissionsModule };
        const module = typeof loaded.getAuthStatus === 'function' ? loaded : loaded.default;
        if (!module || typeof module.getAuthStatus !== 'function')
          return { reason: `${MODULE_NAME} has an unexpected shape` };
        return { module };
      } catch (e) {
        return {
          reason: `${MODULE_NAME} is not installed (${errorMessage(e)}); reinstall Rein's dependencies on macOS`,
        };
      }
    })();
    return this.#loaded;
  }
}
