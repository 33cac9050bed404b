/**
 * The ReinApi operations as the desktop app answers them: the same daemon the browser talks to, run
 * in this process. The daemon has no service layer apart from its HTTP handlers, so most operations
 * are one loopback HTTP call with the token (the same call the page's HTTP client makes). Runs and
 * approvals go straight to the daemon's router and approval desk, which the daemon hands to its
 * embedder: a message must be answered at once (over HTTP it would stream or wait for the whole run),
 * and an answer from the desktop is recorded as `by: desktop`. Settings combine the daemon's part
 * (model, base URL, permission mode) with the desktop's own (keychain key, hotkey, macOS permissions).
 */
import type { z } from 'zod';
import {
  reinOperationNames,
  type MacPermissionName,
  type ReinOperationName,
  type ReinOperationOutput,
  type ReinSettings,
  type reinOperations,
} from '../api/reinApi.js';
import type { ApprovalDesk } from '../daemon/approvalDesk.js';
import type { RunRouter } from '../daemon/runRouter.js';
import { DaemonCallError, type HttpCall, type LoopbackCall } from './loopbackClient.js';

export type ReinOperationArgs<K extends ReinOperationName> = z.output<(typeof reinOperations)[K]['input']>;

/** One function per operation, taking the input as the handler validated it. */
export type ReinService = { [K in ReinOperationName]: (input: ReinOperationArgs<K>) => Promise<ReinOperationOutput<K>> };

/** The desktop's own part of the settings. */
export interface DesktopSettingsPart {
  /** Fields only the desktop knows: platform, where the key comes from, the hotkey and its problem, macOS permissions. */
  read(): Promise<Partial<ReinSettings>>;
  /** Stores the desktop's part of a saveSettings call: the key in the keychain, the hotkey. */
  save(part: { api_key?: string; hotkey?: string | null }): Promise<void>;
  openPermissionSettings(permission: MacPermissionName): Promise<{ opened: boolean }>;
  /**
   * The daemon's part of the settings read from config.yaml, for a daemon that has no settings
   * endpoint: the key (which the desktop keeps) must be enterable whatever the daemon offers.
   */
  configPart(): Promise<Pick<ReinSettings, 'base_url' | 'model' | 'small_model' | 'permission_mode'>>;
}

export interface ReinServiceDeps {
  router: Pick<RunRouter, 'submit' | 'cancel'>;
  desk: Pick<ApprovalDesk, 'list' | 'answer'>;
  http: LoopbackCall;
  /** The daemon HTTP call that carries an operation (the page's own mapping, see docs/desktop-shell.md). */
  httpCallFor(name: ReinOperationName, input: unknown): HttpCall;
  desktop: DesktopSettingsPart;
}

/** Operations answered in this process rather than over loopback HTTP. */
const IN_PROCESS = new Set<ReinOperationName>(['sendMessage', 'cancel', 'listApprovals', 'answerApproval', 'getSettings', 'saveSettings', 'openPermissionSettings']);

export function createReinService(deps: ReinServiceDeps): ReinService {
  const getSettings = async (): Promise<ReinSettings> => {
    let daemonPart: Partial<ReinSettings>;
    try {
      daemonPart = (await deps.http(deps.httpCallFor('getSettings', undefined))) as ReinSettings;
    } catch (e) {
      if (!(e instanceof DaemonCallError && e.status === 404)) throw e;
      daemonPart = await deps.desktop.configPart();
    }
    return { ...daemonPart, ...(await deps.desktop.read()) } as ReinSettings;
  };

  const own: { [K in ReinOperationName]?: ReinService[K] } = {
    sendMessage: async (msg) => {
      const outcome = await deps.router.submit(msg, { defaultSource: 'desktop' });
      if (outcome.injected) return outcome.result;
      const run = outcome.run;
      return { injected: false, route: run.key, agent: run.agent, ...(run.sessionId ? { session_id: run.sessionId } : {}) };
    },
    cancel: async (target) => {
      const run = deps.router.cancel(target);
      if (!run) throw new DaemonCallError('no run in flight matches that route, session or agent', 'not_running', 404);
      return { cancelled: true, route: run.key, ...(run.sessionId ? { session_id: run.sessionId } : {}) };
    },
    listApprovals: async () => ({ approvals: deps.desk.list() }),
    answerApproval: async ({ request_id, decision }) => {
      const outcome = deps.desk.answer(request_id, decision, 'desktop');
      if (!outcome.ok) throw new DaemonCallError(outcome.message, outcome.code, outcome.status);
      return { ok: true, request_id, decision };
    },
    getSettings,
    saveSettings: async (input) => {
      const { api_key, hotkey, ...daemonPart } = input;
      if (Object.keys(daemonPart).length > 0) await deps.http(deps.httpCallFor('saveSettings', daemonPart));
      if (api_key !== undefined || hotkey !== undefined) {
        await deps.desktop.save({ ...(api_key !== undefined ? { api_key } : {}), ...(hotkey !== undefined ? { hotkey } : {}) });
      }
      return getSettings();
    },
    openPermissionSettings: ({ permission }) => deps.desktop.openPermissionSettings(permission),
  };

  const service: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const name of reinOperationNames) {
    const local = own[name] as ((input: unknown) => Promise<unknown>) | undefined;
    service[name] = IN_PROCESS.has(name) && local ? local : (input) => deps.http(deps.httpCallFor(name, input));
  }
  return service as ReinService;
}
