/**
 * What "raising an agent's permissions" means, so one rule decides which API changes a person must
 * confirm (`rein changes accept`, the desktop app: docs/permissions.md, *Threat model*; the service's change desk applies it). The
 * two postures compared are what the agent (or every agent, for the global settings) runs with before
 * and after the change — the config merged over the global one — so an entry the global config
 * already grants is not a raise, and a list the agent replaces is compared as a whole.
 *
 * A raise is any of: a more permissive mode (plan < dontAsk < default < acceptEdits < bypassPermissions);
 * auto_approve turned on; unattended_approvals becoming `ask`; an entry added to allowed_commands,
 * always_allow_tools, grants, gui_unattended, network_allowlist, allowed_dirs or tools.env_passthrough; an
 * entry removed from denied_commands, sensitive_patterns or tools.denied; a wider tools.allowed (an
 * empty list allows every tool); an MCP server added or changed; a hook added or changed; the
 * working folder moving while edits there are accepted without asking (acceptEdits); and `base_url` set
 * to another server (the API key and every conversation would go there; removing it is not a raise:
 * runs go back to ANTHROPIC_BASE_URL or Anthropic's own).
 */
import type { PermissionMode } from '../api/patterns.js';
import { sameBaseUrl } from '../util/baseUrl.js';

export interface PermissionPosture {
  mode: PermissionMode;
  autoApprove: boolean;
  unattendedApprovals: 'deny' | 'ask';
  permissions: {
    allowed_commands: readonly string[];
    denied_commands: readonly string[];
    allowed_dirs: readonly string[];
    sensitive_patterns: readonly string[];
    network_allowlist: readonly string[];
    always_allow_tools: readonly string[];
    gui_unattended: readonly string[];
    /** Saved "Always allow" grants (config/schema.ts GrantEntry). */
    grants?: readonly unknown[];
  };
  tools: { allowed: readonly string[]; denied: readonly string[]; env_passthrough: readonly string[] };
  mcpServers: Readonly<Record<string, unknown>>;
  hooks: Readonly<Record<string, readonly unknown[]>>;
  /** The agent's working folder as written, when it sets one. */
  cwd?: string;
  /** Config `base_url`, where runs send the API key and the conversation, when one is set. */
  baseUrl?: string;
}

export interface PermissionRaise {
  /** The setting, as written in config.yaml (`mode`, `permissions.allowed_commands`, `mcp_servers.github`…). */
  field: string;
  /** What changes, for a person: `default → bypassPermissions`, `adds "rm *"`. */
  change: string;
}

/** Least to most permissive. */
export const MODE_RANK: Readonly<Record<PermissionMode, number>> = {
  plan: 0,
  dontAsk: 1,
  default: 2,
  acceptEdits: 3,
  bypassPermissions: 4,
};

const quoteAll = (items: readonly string[], max = 4): string =>
  items
    .slice(0, max)
    .map((i) => JSON.stringify(i))
    .join(', ') + (items.length > max ? ` and ${items.length - max} more` : '');

const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );

export function permissionRaises(before: PermissionPosture, after: PermissionPosture): PermissionRaise[] {
  const out: PermissionRaise[] = [];
  if (MODE_RANK[after.mode] > MODE_RANK[before.mode])
    out.push({ field: 'mode', change: `${before.mode} → ${after.mode}` });
  if (after.autoApprove && !before.autoApprove)
    out.push({ field: 'auto_approve', change: 'turned on: calls that would ask run without asking' });
  if (after.unattendedApprovals === 'ask' && before.unattendedApprovals !== 'ask') {
    out.push({ field: 'unattended_approvals', change: 'deny → ask' });
  }
  const added = (field: string, b: readonly string[], a: readonly string[]) => {
    const extra = a.filter((x) => !b.includes(x));
    if (extra.length > 0) out.push({ field, change: `adds ${quoteAll(extra)}` });
  };
  const removed = (field: string, b: readonly string[], a: readonly string[]) => {
    const gone = b.filter((x) => !a.includes(x));
    if (gone.length > 0) out.push({ field, change: `removes ${quoteAll(gone)}` });
  };
  const p = (k: Exclude<keyof PermissionPosture['permissions'], 'grants'>) =>
    [before.permissions[k], after.permissions[k]] as const;
  added('permissions.allowed_commands', ...p('allowed_commands'));
  added('permissions.always_allow_tools', ...p('always_allow_tools'));
  added('permissions.gui_unattended', ...p('gui_unattended'));
  const newGrants = (after.permissions.grants ?? [])
    .map(stable)
    .filter((g) => !(before.permissions.grants ?? []).map(stable).includes(g));
  if (newGrants.length > 0)
    out.push({
      field: 'permissions.grants',
      change: `adds ${newGrants.length === 1 ? `the grant ${newGrants[0]}` : `${newGrants.length} grants`}`,
    });
  added('permissions.network_allowlist', ...p('network_allowlist'));
  added('permissions.allowed_dirs', ...p('allowed_dirs'));
  removed('permissions.denied_commands', ...p('denied_commands'));
  removed('permissions.sensitive_patterns', ...p('sensitive_patterns'));
  removed('tools.denied', before.tools.denied, after.tools.denied);
  added('tools.env_passthrough', before.tools.env_passthrough, after.tools.env_passthrough);
  // tools.allowed: empty means every tool.
  if (before.tools.allowed.length > 0) {
    if (after.tools.allowed.length === 0)
      out.push({ field: 'tools.allowed', change: 'emptied: every tool becomes available' });
    else added('tools.allowed', before.tools.allowed, after.tools.allowed);
  }
  for (const [name, server] of Object.entries(after.mcpServers)) {
    const old = before.mcpServers[name];
    if (old === undefined)
      out.push({
        field: `mcp_servers.${name}`,
        change: 'adds a server (it runs a program or reaches a URL for the agent)',
      });
    else if (stable(old) !== stable(server)) out.push({ field: `mcp_servers.${name}`, change: 'changes the server' });
  }
  for (const [event, entries] of Object.entries(after.hooks)) {
    const old = (before.hooks[event] ?? []).map(stable);
    const extra = entries.filter((e) => !old.includes(stable(e)));
    if (extra.length > 0)
      out.push({
        field: `hooks.${event}`,
        change: `adds ${extra.length === 1 ? 'a command' : `${extra.length} commands`} that runs outside the permission rules`,
      });
  }
  if (after.mode === 'acceptEdits' && (after.cwd ?? '') !== (before.cwd ?? '')) {
    out.push({
      field: 'cwd',
      change: `${before.cwd ?? '(the default)'} → ${after.cwd ?? '(the default)'}: edits there run without asking in acceptEdits`,
    });
  }
  if (after.baseUrl !== undefined && (before.baseUrl === undefined || !sameBaseUrl(before.baseUrl, after.baseUrl))) {
    out.push({
      field: 'base_url',
      change: `${before.baseUrl ?? '(the default)'} → ${after.baseUrl}: the API key and every conversation go there`,
    });
  }
  return out;
}

/** One line for a card or a notification: `mode default → bypassPermissions; auto_approve turned on…`. */
export function describeRaises(raises: readonly PermissionRaise[], max = 3): string {
  const shown = raises.slice(0, max).map((r) => `${r.field} ${r.change}`);
  return shown.join('; ') + (raises.length > max ? `; and ${raises.length - max} more` : '');
}
