/**
 * The ReinApi operations as the desktop app answers them: the same service the daemon's HTTP face
 * adapts, called in this process — no loopback HTTP, no token, no socket. Messages from the window are
 * attended runs (a person at this window); an approval answered here is recorded as `by: desktop`.
 * Settings combine the service's part (model, base URL, permission mode, hotkey) with the desktop's own
 * (the key in the keychain, the hotkey's registration, macOS permissions).
 */
import type { z } from 'zod';
import type { MacPermissionName, ReinOperationName, ReinOperationOutput, ReinSettings, reinOperations } from '../api/reinApi.js';
import type { ReinService } from '../service/reinService.js';

export type ReinOperationArgs<K extends ReinOperationName> = z.output<(typeof reinOperations)[K]['input']>;

/** One function per operation, taking the input as the IPC handler validated it. */
export type DesktopReinApi = { [K in ReinOperationName]: (input: ReinOperationArgs<K>) => Promise<ReinOperationOutput<K>> };

/** The desktop's own part of the settings. */
export interface DesktopSettingsPart {
  /** Fields only the desktop knows: platform, where the key comes from, the hotkey and its problem, macOS permissions. */
  read(): Promise<Partial<ReinSettings>>;
  /** Stores the desktop's part of a saveSettings call: the key in the keychain, the hotkey. */
  save(part: { api_key?: string; hotkey?: string | null }): Promise<void>;
  openPermissionSettings(permission: MacPermissionName): Promise<{ opened: boolean }>;
}

export function createDesktopReinApi(service: ReinService, desktop: DesktopSettingsPart): DesktopReinApi {
  const getSettings = async (): Promise<ReinSettings> => ({ ...(await service.getSettings()), ...(await desktop.read()) });
  return {
    status: () => service.status(),
    switchAgent: (input) => service.switchAgent(input),
    listAgents: () => service.listAgents(),
    getAgent: (input) => service.getAgent(input),
    createAgent: (input) => service.createAgent(input),
    saveAgent: (input) => service.saveAgent(input),
    deleteAgent: (input) => service.deleteAgent(input),
    listSkills: (input) => service.listSkills(input),
    listSessions: (input) => service.listSessions(input),
    getSession: (input) => service.getSession(input),
    searchSessions: (input) => service.searchSessions(input),
    sendMessage: (msg) => service.sendMessage(msg, 'desktop', 'desktop'),
    cancel: async (target) => service.cancel(target),
    listApprovals: async () => service.listApprovals(),
    answerApproval: async (input) => service.answerApproval(input, 'desktop'),
    getSettings,
    saveSettings: async (input) => {
      const { api_key, hotkey, ...rest } = input;
      // The service's part first (it checks everything before it writes), then what the desktop keeps
      // itself: the key in the keychain, the hotkey (saved and registered).
      if (Object.keys(rest).length > 0) await service.saveSettings(rest);
      if (api_key !== undefined || hotkey !== undefined) {
        await desktop.save({ ...(api_key !== undefined ? { api_key } : {}), ...(hotkey !== undefined ? { hotkey } : {}) });
      }
      return getSettings();
    },
    testConnection: (input) => service.testConnection(input),
    openPermissionSettings: ({ permission }) => desktop.openPermissionSettings(permission),
  };
}
