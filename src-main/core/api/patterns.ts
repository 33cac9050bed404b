/**
 * The one definition of each name Rein checks at its boundaries: agent (and skill, command) names,
 * session ids, source names, approval ids, permission modes and run origins. Every layer that checks
 * one of these imports it from here, so the CLI, the config loader, the daemon and the page cannot
 * drift apart. Pure zod, no Node built-ins: the renderer bundles this file.
 */
import { z } from 'zod';

/** Agent, skill and command names: they double as folder and file names. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const AGENT_NAME_PATTERN = NAME_PATTERN;
/** `YYYY-MM-DD-` + 12 lowercase hex characters; the id doubles as a file name. */
export const SESSION_ID_PATTERN = /^\d{4}-\d{2}-\d{2}-[0-9a-f]{12}$/;
/** Where a message came from: cli, desktop, http, ws, slack, schedule, heartbeat, watcher… */
export const SOURCE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const APPROVAL_ID_PATTERN = /^apr_[0-9a-f]{16}$/;
/** A permission-raising change waiting for a person (`rein changes accept`, the desktop app: core/service/changeDesk.ts). */
export const CHANGE_ID_PATTERN = /^chg_[0-9a-f]{16}$/;

export const AgentName = z
  .string()
  .regex(AGENT_NAME_PATTERN, 'expected an agent name (lowercase letters, digits, - and _, at most 64)');
export const ItemName = (what: string) =>
  z.string().regex(NAME_PATTERN, `expected a ${what} name (lowercase letters, digits, - and _, at most 64)`);
export const SessionId = z.string().regex(SESSION_ID_PATTERN, 'expected a session id (YYYY-MM-DD-<12 hex>)');
export const SourceName = z.string().regex(SOURCE_PATTERN, 'expected a short lowercase word (slack, telegram, web…)');
export const ApprovalId = z.string().regex(APPROVAL_ID_PATTERN, 'expected an approval id (apr_<16 hex>)');
export const ChangeId = z.string().regex(CHANGE_ID_PATTERN, 'expected a change id (chg_<16 hex>)');

export const isAgentName = (s: unknown): s is string => typeof s === 'string' && AGENT_NAME_PATTERN.test(s);
export const isSessionId = (s: unknown): s is string => typeof s === 'string' && SESSION_ID_PATTERN.test(s);
export const isSourceName = (s: unknown): s is string => typeof s === 'string' && SOURCE_PATTERN.test(s);

export const PermissionMode = z.enum(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']);
export type PermissionMode = z.infer<typeof PermissionMode>;

/**
 * Who is behind a run (docs/permissions.md, "Run origins"):
 * - attended: a person at this terminal, window or page, who can answer at once;
 * - remote: a person behind a channel (Slack, an API client), reached through the approval desk;
 * - unattended: nobody (schedule, heartbeat, watcher).
 */
export const RunOrigin = z.enum(['attended', 'remote', 'unattended']);
export type RunOrigin = z.infer<typeof RunOrigin>;

/** Sources that always mean nobody is watching, whichever entry point the message came through. */
/**
 * A command may have at most this many characters (the API checks commands sent to it, agents/agentFiles.ts
 * files on disk). Here rather than in reinApi.ts so that reading an agent's files does not build every
 * operation's schema.
 */
export const COMMAND_MAX_CHARS = 8_000;

export const UNATTENDED_SOURCES: ReadonlySet<string> = new Set(['schedule', 'heartbeat', 'watcher']);
