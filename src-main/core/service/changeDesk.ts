/**
 * Changes that raise permissions, asked for over the daemon's API, wait here for a person. A token
 * holder (a script, the web page, a relay — or a run that somehow got the token) may ask for an agent
 * in bypassPermissions, auto_approve, more allowed commands, a new MCP server…; nothing is written
 * until a person confirms it where a person is known to be: in a shell on the daemon's machine
 * (`rein changes accept ID`, which proves itself with a secret only a local process of this user can
 * read: daemon/confirmSecret.ts), or in the desktop app, whose window is known to be a person at this Mac
 * (its IPC sender check). A service no daemon runs (a CLI command's own) has neither: the change is
 * refused with what to do instead (edit the file, `rein agents`). See docs/permissions.md, *Threat model*.
 *
 * A change is kept in memory (a restart forgets it), for CHANGE_TTL_MS, at most MAX_PENDING at once;
 * it is applied exactly as it was asked, through the same operation a person's own change takes.
 */
import { randomBytes } from 'node:crypto';
import type { DaemonEvent, PendingChange, PermissionRaise } from '../api/events.js';
import type { ChangePending } from '../api/reinApi.js';
import { maskSecretsIn } from '../audit/maskSecrets.js';
import { resolve } from 'node:path';
import { shellWord } from '../config/folderTrust.js';
import { paths, reinHome } from '../config/paths.js';
import { ReinError } from '../errors.js';
import { describeRaises } from '../permissions/raises.js';

/** Who asked for a change: a person at the desktop window, or a token holder over the daemon's API. */
export type ChangeSource = 'person' | 'remote';

export const CHANGE_TTL_MS = 30 * 60_000;
export const MAX_PENDING = 20;

/**
 * `trust_folder` is asked for by the daemon itself, not over the API: the folder it runs in holds a
 * `.rein/config.yaml` whose raising settings wait until a person trusts it (config/folderTrust.ts).
 */
export type ChangeKind = 'create_agent' | 'save_agent' | 'save_settings' | 'always_allow' | 'trust_folder';

export interface ProposedChange {
  kind: ChangeKind;
  agent?: string;
  /** What it is about when that is no agent (the folder to trust), for the summary. */
  subject?: string;
  raises: PermissionRaise[];
  /** The request as asked (shown masked; applied as is). */
  request: unknown;
  /** Makes the change (the operation as a person's own). */
  apply: () => Promise<unknown>;
  /** How to make it by hand, when nobody can confirm it (default: by kind). */
  howTo?: string;
}

interface Entry {
  change: PendingChange;
  apply: () => Promise<unknown>;
  expiresAt: number;
}

export interface ChangeDeskOptions {
  home: string;
  publish(event: DaemonEvent): void;
  /** The desktop app is attached: a person can confirm it in its window. */
  desktopAttached(): boolean;
  /**
   * Set when a person can confirm it in a shell on this machine (a daemon made its confirm secret): the
   * command line that does it, REIN_HOME included when it is not the default.
   */
  shellCommand?: (verb: 'accept' | 'reject', changeId: string) => string;
  now?: () => number;
}

const WHAT: Record<ChangeKind, string> = {
  create_agent: 'Create agent',
  save_agent: 'Change agent',
  save_settings: 'Change the global settings',
  always_allow: 'Always allow',
  trust_folder: 'Trust the project folder',
};

export class ChangeDesk {
  readonly #pending = new Map<string, Entry>();
  readonly #opts: ChangeDeskOptions;

  constructor(opts: ChangeDeskOptions) {
    this.#opts = opts;
  }

  get size(): number {
    this.#sweep();
    return this.#pending.size;
  }

  /**
   * A remote request that raises permissions: kept for a person when one can confirm it (a shell on the
   * daemon's machine, the desktop app), refused (`confirmation_required`) when nobody can.
   */
  propose(p: ProposedChange, requestedBy = 'daemon'): ChangePending {
    this.#sweep();
    const what = `${WHAT[p.kind]}${p.agent ? ` "${p.agent}"` : p.subject ? ` ${p.subject}` : ''}`;
    const raised = describeRaises(p.raises);
    const desktop = this.#opts.desktopAttached();
    const shell = this.#opts.shellCommand;
    if (!desktop && !shell) {
      throw new ReinError(
        'confirmation_required',
        `${what}: this raises permissions (${raised}), so a person must confirm it, and nobody can here: no Rein daemon keeps it for \`rein changes accept\`, and the Rein desktop app is not running. ` +
          `Nothing was changed. To make the change yourself, ${this.#howTo(p)}.`,
        { raises: p.raises },
      );
    }
    while (this.#pending.size >= MAX_PENDING) {
      const oldest = this.#pending.keys().next().value as string;
      this.#drop(oldest, 'expired', 'overflow');
    }
    const now = this.#now();
    const change_id = `chg_${randomBytes(8).toString('hex')}`;
    const accept = shell?.('accept', change_id);
    const reject = shell?.('reject', change_id);
    const change: PendingChange = {
      change_id,
      kind: p.kind,
      ...(p.agent ? { agent: p.agent } : {}),
      summary: `${what}: ${raised}`,
      raises: p.raises,
      request: maskSecretsIn(structuredClone(p.request)),
      requested_by: requestedBy,
      requested_at: new Date(now).toISOString(),
      expires_at: new Date(now + CHANGE_TTL_MS).toISOString(),
      ...(accept ? { accept_command: accept } : {}),
      ...(reject ? { reject_command: reject } : {}),
    };
    this.#pending.set(change_id, { change, apply: p.apply, expiresAt: now + CHANGE_TTL_MS });
    this.#opts.publish({ type: 'change_request', at: change.requested_at, change });
    const whereTo = accept
      ? `run \`${accept}\` in a shell on this machine${desktop ? ', or confirm it in the Rein desktop app' : ''}`
      : 'confirm it in the Rein desktop app';
    return {
      pending: true,
      change_id,
      kind: p.kind,
      ...(p.agent ? { agent: p.agent } : {}),
      raises: p.raises,
      ...(accept ? { accept_command: accept } : {}),
      message: `${what}: this raises permissions (${raised}). Nothing is changed until a person confirms it: ${whereTo} (change ${change_id}, waits ${CHANGE_TTL_MS / 60_000} minutes).`,
    };
  }

  list(): PendingChange[] {
    this.#sweep();
    return [...this.#pending.values()].map((e) => e.change);
  }

  /** A person's answer (the desktop window, a shell on this machine). Applying runs the operation; its errors reach the person. */
  async answer(
    changeId: string,
    decision: 'apply' | 'reject',
    by: string,
  ): Promise<{ change_id: string; outcome: 'applied' | 'rejected' }> {
    this.#sweep();
    const entry = this.#pending.get(changeId);
    if (!entry)
      throw new ReinError(
        'change_not_found',
        `no pending change ${changeId} (it was answered, expired, or the daemon restarted)`,
      );
    this.#pending.delete(changeId);
    if (decision === 'reject') {
      this.#publish(changeId, 'rejected', by);
      return { change_id: changeId, outcome: 'rejected' };
    }
    try {
      await entry.apply();
    } catch (e) {
      this.#publish(changeId, 'failed', by, e instanceof Error ? e.message : String(e));
      throw e;
    }
    this.#publish(changeId, 'applied', by);
    return { change_id: changeId, outcome: 'applied' };
  }

  /** Drops everything (the service is closing). */
  dispose(): void {
    this.#pending.clear();
  }

  #howTo(p: ProposedChange): string {
    if (p.howTo) return p.howTo;
    if (p.kind === 'save_settings') return `edit ${paths.globalConfig(this.#opts.home)}`;
    const file = `${paths.agentDir(this.#opts.home, p.agent ?? 'NAME')}/config.yaml`;
    return p.kind === 'create_agent'
      ? `run \`rein agents create ${p.agent ?? 'NAME'}\` and edit ${file}, or ask again while \`rein daemon\` (or the desktop app) runs`
      : `edit ${file}, or ask again while \`rein daemon\` (or the desktop app) runs`;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, e] of this.#pending) if (e.expiresAt <= now) this.#drop(id, 'expired', 'timeout');
  }

  #drop(id: string, outcome: 'expired', by: string): void {
    this.#pending.delete(id);
    this.#publish(id, outcome, by);
  }

  #publish(
    change_id: string,
    outcome: 'applied' | 'rejected' | 'failed' | 'expired',
    by: string,
    error?: string,
  ): void {
    this.#opts.publish({
      type: 'change_response',
      at: new Date(this.#now()).toISOString(),
      change_id,
      outcome,
      by,
      ...(error ? { error } : {}),
    });
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }
}

/**
 * The command lines that confirm or reject a change in a shell on this machine: `rein changes accept
 * chg_…`, with `REIN_HOME=…` in front when the daemon's home is not the default one, so the line works
 * as it is copied.
 */
export function shellChangeCommand(home: string): (verb: 'accept' | 'reject', changeId: string) => string {
  const prefix = resolve(home) === reinHome({}) ? '' : `REIN_HOME=${shellWord(resolve(home))} `;
  return (verb, changeId) => `${prefix}rein changes ${verb} ${changeId}`;
}
