/**
 * The ReinApi operations as the desktop app answers them: the same service the daemon's HTTP face
 * adapts, called in this process — no loopback HTTP, no token, no socket. Messages from the window are
 * attended runs (a person at this window); an approval answered here is recorded as `by: desktop`.
 * Settings combine the service's part (model, base URL, permission mode, hotkey) with the desktop's own
 * (the key in the keychain, the hotkey's registration, macOS permissions). Agent and settings changes
 * made here are a person's (`from: 'person'`): they apply at once, while the same change asked for over
 * the daemon's API waits for a person to confirm it here (service/changeDesk.ts).
 */
import type { z } from 'zod';
import type {
  MacPermissionName,
  ReinOperationName,
  ReinOperationOutput,
  ReinSettings,
  reinOperations,
} from '../api/reinApi.js';
import type { ChangePending } from '../api/reinApi.js';
import type { ReinService } from '../service/reinService.js';
import { ReinError } from '../errors.js';

export type ReinOperationArgs<K extends ReinOperationName> = z.output<(typeof reinOperations)[K]['input']>;

/** One function per operation, taking the input as the IPC handler validated it. */
export type DesktopReinApi = {
  [K in ReinOperationName]: (input: ReinOperationArgs<K>) => Promise<ReinOperationOutput<K>>;
};

/** The desktop's own part of the settings. */
export interface DesktopSettingsPart {
  /** Fields only the desktop knows: platform, where the key comes from, the hotkey and its problem, macOS permissions. */
  read(): Promise<Partial<ReinSettings>>;
  /** Stores the desktop's part of a saveSettings call: the key in the keychain, the hotkey. */
  save(part: { api_key?: string; hotkey?: string | null }): Promise<void>;
  openPermissionSettings(permission: MacPermissionName): Promise<{ opened: boolean }>;
}

export function createDesktopReinApi(service: ReinService, desktop: DesktopSettingsPart): DesktopReinApi {
  const getSettings = async (): Promise<ReinSettings> => ({
    ...(await service.getSettings()),
    ...(await desktop.read()),
  });
  return {
    status: () => service.status(),
    switchAgent: (input) => service.switchAgent(input),
    listAgents: () => service.listAgents(),
    getAgent: (input) => service.getAgent(input),
    // A person at this window: their changes apply at once, raised permissions included.
    createAgent: async (input) => applied(await service.createAgent(input, 'person')),
    saveAgent: async (input) => applied(await service.saveAgent(input, 'person')),
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
      if (Object.keys(rest).length > 0) applied(await service.saveSettings(rest, 'person'));
      if (api_key !== undefined || hotkey !== undefined) {
        await desktop.save({
          ...(api_key !== undefined ? { api_key } : {}),
          ...(hotkey !== undefined ? { hotkey } : {}),
        });
      }
      return getSettings();
    },
    testConnection: (input) => service.testConnection(input),
    agentActivity: (input) => service.agentActivity(input) as never,
    listSchedules: () => service.listSchedules(),
    getSchedule: (input) => service.getSchedule(input),
    createSchedule: (input) => service.createSchedule(input),
    updateSchedule: (input) => service.updateSchedule(input),
    removeSchedule: (input) => service.removeSchedule(input),
    // Answers at once: the run's progress comes on the bus (schedule_run and the run's own events).
    runSchedule: async ({ id }) => {
      await service.getSchedule({ id });
      void service.runScheduleNow(id, 'hand').catch(() => undefined);
      return { started: true, id };
    },
    scheduleLogs: (input) => service.scheduleLogs(input),
    readScheduleLog: (input) => service.readScheduleLog(input),
    openPermissionSettings: ({ permission }) => desktop.openPermissionSettings(permission),
    listChanges: async () => service.listChanges(),
    mcpServers: (input) => service.mcpServers(input ?? {}),
    // A person at this window: the sign-in page opens in their browser (the shell's opener).
    mcpLogin: (input) => service.mcpLogin(input),
    mcpReconnect: (input) => service.mcpReconnect(input),
  };
}

/** A person's own change is never left pending; the type says it may be, for remote callers. */
function applied<T>(result: T | ChangePending): T {
  if (result && typeof result === 'object' && (result as { pending?: unknown }).pending === true) {
    throw new ReinError('internal', 'a change made in the app was left waiting for confirmation');
  }
  return result as T;
}
