/**
 * The bridge: the page gets `window.rein` (a ReinApi: one named method per operation and a
 * subscription to events) and `window.reinDesktop` (the desktop-only operations and the shell's
 * requests to open a view), and nothing else: no ipcRenderer, no channel names of its choosing.
 *
 * Only types come from core/api, so this bundle stays a few lines of JavaScript (a value import would
 * bundle zod into a sandboxed preload). The operation lists below are typed as records over the
 * contract's operation names, so adding an operation without listing it here is a type error.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { DesktopOperationName, DesktopView, ReinDesktopApi } from '../src-main/core/api/desktopApi.js';
import type { ApiEvent, ReinApi, ReinEnvelope, ReinOperationName } from '../src-main/core/api/index.js';

// Must equal REIN_EVENT_CHANNEL and DESKTOP_NAVIGATE_CHANNEL in core/api.
const EVENT_CHANNEL = 'rein:event';
const NAVIGATE_CHANNEL = 'rein:navigate';

const REIN_OPERATIONS: Record<ReinOperationName, true> = {
  status: true,
  switchAgent: true,
  listAgents: true,
  getAgent: true,
  createAgent: true,
  saveAgent: true,
  deleteAgent: true,
  listSkills: true,
  listSessions: true,
  getSession: true,
  searchSessions: true,
  sendMessage: true,
  cancel: true,
  listApprovals: true,
  answerApproval: true,
  getSettings: true,
  saveSettings: true,
  testConnection: true,
  agentActivity: true,
  listSchedules: true,
  getSchedule: true,
  createSchedule: true,
  updateSchedule: true,
  removeSchedule: true,
  runSchedule: true,
  scheduleLogs: true,
  readScheduleLog: true,
  openPermissionSettings: true,
  listChanges: true,
  mcpServers: true,
  mcpLogin: true,
  mcpReconnect: true,
};

const DESKTOP_OPERATIONS: Record<DesktopOperationName, true> = {
  desktopSettings: true,
  updateDesktopSettings: true,
  clearApiKey: true,
  requestMacPermission: true,
  answerChange: true,
};

const VIEWS: ReadonlySet<string> = new Set<DesktopView>(['chat', 'approvals', 'agents', 'sessions', 'settings']);

/**
 * Invokes a handler and unwraps its envelope. contextBridge keeps only an Error's message, so code and
 * field ride inside it as `[code field] message` (the format of bridgeErrorMessage in core/api).
 */
async function call(channel: string, input: unknown): Promise<unknown> {
  const reply = (await ipcRenderer.invoke(channel, input)) as ReinEnvelope<unknown>;
  if (!reply.ok) throw new Error(`[${reply.code}${reply.field ? ` ${reply.field}` : ''}] ${reply.error}`);
  return reply.value;
}

function methods(prefix: string, names: readonly string[]): Record<string, (input?: unknown) => Promise<unknown>> {
  const out: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const name of names) out[name] = (input?: unknown) => call(`${prefix}${name}`, input);
  return out;
}

const rein = {
  ...methods('rein:', Object.keys(REIN_OPERATIONS)),
  subscribe(listener: (event: ApiEvent) => void): () => void {
    const forward = (_event: IpcRendererEvent, frame: ApiEvent): void => listener(frame);
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.off(EVENT_CHANNEL, forward);
    };
  },
} as unknown as ReinApi;

const reinDesktop = {
  ...methods('rein:desktop.', Object.keys(DESKTOP_OPERATIONS)),
  onNavigate(listener: (view: DesktopView) => void): () => void {
    const forward = (_event: IpcRendererEvent, view: unknown): void => {
      if (typeof view === 'string' && VIEWS.has(view)) listener(view as DesktopView);
    };
    ipcRenderer.on(NAVIGATE_CHANNEL, forward);
    return () => {
      ipcRenderer.off(NAVIGATE_CHANNEL, forward);
    };
  },
} as unknown as ReinDesktopApi;

contextBridge.exposeInMainWorld('rein', rein);
contextBridge.exposeInMainWorld('reinDesktop', reinDesktop);
