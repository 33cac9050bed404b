/**
 * Changes that raise permissions, asked for over the daemon's API, wait here for a person. A token
 * holder (a script, the web page, a relay — or a run that somehow got the token) may ask for an agent
 * in bypassPermissions, auto_approve, more allowed commands, a new MCP server…; nothing is written
 * until a person confirms it in the desktop app, whose window is the one face known to be a person
 * at this Mac (its IPC sender check). Without the app there is nobody to ask: the change is refused
 * with what to do instead (edit the file, `rein agents`). See docs/permissions.md, *Threat model*.
 *
 * A change is kept in memory (a restart forgets it), for CHANGE_TTL_MS, at most MAX_PENDING at once;
 * it is applied exactly as it was asked, through the same operation a person's own change takes.
 */
import { randomBytes } from 'node:crypto';
import type { DaemonEvent, PendingChange, PermissionRaise } from '../api/events.js';
import type { ChangePending } from '../api/reinApi.js';
import { maskSecretsIn } from '../audit/maskSecrets.js';
import { paths } from '../config/paths.js';
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
  /** Whether a person can confirm it now: the desktop app is attached. */
  personReachable(): boolean;
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
   * A remote request that raises permissions: kept for a person when the desktop app can ask one,
   * refused (`confirmation_required`) when it cannot.
   */
  propose(p: ProposedChange, requestedBy = 'daemon'): ChangePending {
    this.#sweep();
    const what = `${WHAT[p.kind]}${p.agent ? ` "${p.agent}"` : p.subject ? ` ${p.subject}` : ''}`;
    const raised = describeRaises(p.raises);
    if (!this.#opts.personReachable()) {
      throw new ReinError(
        'confirmation_required',
        `${what}: this raises permissions (${raised}), so a person must confirm it in the Rein desktop app, which is not running. ` +
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
    };
    this.#pending.set(change_id, { change, apply: p.apply, expiresAt: now + CHANGE_TTL_MS });
    this.#opts.publish({ type: 'change_request', at: change.requested_at, change });
    return {
      pending: true,
      change_id,
      kind: p.kind,
      ...(p.agent ? { agent: p.agent } : {}),
      raises: p.raises,
      message: `${what}: this raises permissions (${raised}). Nothing is changed until a person confirms it in the Rein desktop app (change ${change_id}, for ${CHANGE_TTL_MS / 60_000} minutes).`,
    };
  }

  list(): PendingChange[] {
    this.#sweep();
    return [...this.#pending.values()].map((e) => e.change);
  }

  /** A person's answer (the desktop window). Applying runs the operation; its errors reach the person. */
  async answer(changeId: string, decision: 'apply' | 'reject', by: string): Promise<{ change_id: string; outcome: 'applied' | 'rejected' }> {
    this.#sweep();
    const entry = this.#pending.get(changeId);
    if (!entry) throw new ReinError('change_not_found', `no pending change ${changeId} (it was answered, expired, or the daemon restarted)`);
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
      ? `run \`rein agents create ${p.agent ?? 'NAME'}\` and edit ${file}, or open the desktop app and try again`
      : `edit ${file}, or open the desktop app and try again`;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, e] of this.#pending) if (e.expiresAt <= now) this.#drop(id, 'expired', 'timeout');
  }

  #drop(id: string, outcome: 'expired', by: string): void {
    this.#pending.delete(id);
    this.#publish(id, outcome, by);
  }

  #publish(change_id: string, outcome: 'applied' | 'rejected' | 'failed' | 'expired', by: string, error?: string): void {
    this.#opts.publish({ type: 'change_response', at: new Date(this.#now()).toISOString(), change_id, outcome, by, ...(error ? { error } : {}) });
  }

  #now(): number {
    return (this.#opts.now ?? Date.now)();
  }
}
