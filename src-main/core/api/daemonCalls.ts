/**
 * Which HTTP call of the daemon (docs/daemon-api.md) carries each ReinApi operation. Pure data, so a
 * test can pin the mapping, and free of Node and Electron imports, so both the page
 * (src-renderer/src/api/daemonApi.ts) and the desktop shell (src-main/electron/desktopApp.ts) use the same
 * table. `sendMessage` goes over the WebSocket instead (see daemonApi.ts) because POST /message either
 * streams or waits for the whole run.
 */
import type { ReinOperationInput, ReinOperationName } from './reinApi.js';

export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path and query, already encoded. */
  path: string;
  body?: unknown;
}

type HttpOperation = Exclude<ReinOperationName, 'sendMessage' | 'openPermissionSettings'>;

/** `?a=1&b=x`, leaving out undefined values; '' when nothing is left. */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

const seg = encodeURIComponent;

export const httpCalls: { [K in HttpOperation]: (input: ReinOperationInput<K>) => HttpCall } = {
  status: () => ({ method: 'GET', path: '/status' }),
  switchAgent: ({ name }) => ({ method: 'PUT', path: '/active-agent', body: { name } }),
  listAgents: () => ({ method: 'GET', path: '/agents' }),
  getAgent: ({ name }) => ({ method: 'GET', path: `/agents/${seg(name)}` }),
  createAgent: (input) => ({ method: 'POST', path: '/agents', body: input }),
  saveAgent: ({ name, ...rest }) => ({ method: 'PUT', path: `/agents/${seg(name)}`, body: rest }),
  deleteAgent: ({ name }) => ({ method: 'DELETE', path: `/agents/${seg(name)}` }),
  listSkills: (input) => ({ method: 'GET', path: `/skills${query({ agent: input?.agent })}` }),
  listSessions: (input) => ({
    method: 'GET',
    path: `/sessions${query({ agent: input?.agent, source: input?.source, limit: input?.limit })}`,
  }),
  getSession: ({ id, agent }) => ({ method: 'GET', path: `/sessions/${seg(id)}${query({ agent })}` }),
  searchSessions: ({ q, agent, source, limit }) => ({
    method: 'GET',
    path: `/sessions/search${query({ q, agent, source, limit })}`,
  }),
  cancel: (input) => ({ method: 'POST', path: '/cancel', body: input }),
  listApprovals: () => ({ method: 'GET', path: '/approvals' }),
  answerApproval: (input) => ({ method: 'POST', path: '/approval', body: input }),
  getSettings: () => ({ method: 'GET', path: '/settings' }),
  saveSettings: (input) => ({ method: 'PUT', path: '/settings', body: input }),
  testConnection: (input) => ({ method: 'POST', path: '/settings/test', body: input }),
  listChanges: () => ({ method: 'GET', path: '/changes' }),
  agentActivity: ({ name }) => ({ method: 'GET', path: `/agents/${seg(name)}/activity` }),
  listSchedules: () => ({ method: 'GET', path: '/schedules' }),
  getSchedule: ({ id }) => ({ method: 'GET', path: `/schedules/${seg(id)}` }),
  createSchedule: (input) => ({ method: 'POST', path: '/schedules', body: input }),
  updateSchedule: ({ id, ...rest }) => ({ method: 'PUT', path: `/schedules/${seg(id)}`, body: rest }),
  removeSchedule: ({ id }) => ({ method: 'DELETE', path: `/schedules/${seg(id)}` }),
  runSchedule: ({ id }) => ({ method: 'POST', path: `/schedules/${seg(id)}/run` }),
  scheduleLogs: ({ id }) => ({ method: 'GET', path: `/schedules/${seg(id)}/logs` }),
  readScheduleLog: ({ id, name }) => ({
    method: 'GET',
    path: name ? `/schedules/${seg(id)}/logs/${seg(name)}` : `/schedules/${seg(id)}/log`,
  }),
  mcpServers: (input) => ({ method: 'GET', path: `/mcp/servers${query({ agent: input?.agent })}` }),
  mcpLogin: ({ name, agent }) => ({
    method: 'POST',
    path: `/mcp/servers/${seg(name)}/login`,
    body: agent !== undefined ? { agent } : {},
  }),
  mcpReconnect: ({ name, agent }) => ({
    method: 'POST',
    path: `/mcp/servers/${seg(name)}/reconnect`,
    body: agent !== undefined ? { agent } : {},
  }),
};
