/**
 * What the desktop needs to know about the daemon's traffic, kept from its event bus: which runs are
 * in flight, which approvals wait, the last failure. The tray icon is drawn from it and the
 * notifications come from the notes `observe` returns. Counting from events (not from the router)
 * means a run stops counting the moment its `session_end` is published, not when its bookkeeping
 * finishes a little later.
 */
import type { RiskLevel, StopReason } from '../api/events.js';
import type { RunOrigin } from '../api/patterns.js';
import type { RoutedEvent } from '../api/protocol.js';
import { trayStateFor, type TrayState } from './trayState.js';

interface RunInfo {
  agent: string;
  source: string;
}

/** Something that happened which a person may want to hear about. */
export type ActivityNote =
  | {
      kind: 'run_ended';
      session_id: string;
      agent: string;
      source: string;
      stop_reason: StopReason;
      text: string;
      error?: string;
    }
  | {
      kind: 'approval_requested';
      request_id: string;
      agent: string;
      tool: string;
      summary: string;
      risk: RiskLevel;
      origin: RunOrigin;
      source: string;
    }
  | { kind: 'heartbeat_alert'; agent: string; text: string }
  | { kind: 'schedule_ended'; agent: string; schedule_id: string; ok: boolean; message?: string }
  /** A permission-raising change asked for over the API waits for the person here (service/changeDesk.ts). */
  | { kind: 'change_requested'; change_id: string; agent?: string; summary: string }
  /** A watched folder this process may not read: the watch is blind until access is given. */
  | { kind: 'watch_unreadable'; agent: string; path: string; reason: string; hint?: string };

export class DesktopActivity {
  readonly #runs = new Map<string, RunInfo>();
  /** request_id → session_id, so a run that ends takes its unanswered questions with it. */
  readonly #approvals = new Map<string, string>();
  /** Permission-raising changes waiting for the person. */
  readonly #changes = new Set<string>();
  /** Watches (agent and folder) already told as unreadable: once per watch per process, not at every rescan or flap. */
  readonly #unreadableTold = new Set<string>();
  /** The last error message of each run still in flight: its session_end reports it. */
  readonly #runErrors = new Map<string, string>();
  #lastError: string | undefined;

  get activeRuns(): number {
    return this.#runs.size;
  }

  get pendingApprovals(): number {
    return this.#approvals.size;
  }

  get pendingChanges(): number {
    return this.#changes.size;
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  trayState(): TrayState {
    // A change waiting for confirmation is a question for the person, like an approval.
    return trayStateFor(this.pendingApprovals + this.pendingChanges, this.activeRuns, this.#lastError);
  }

  /** A failure outside any run (the daemon could not start, a hotkey could not be registered…). */
  reportError(message: string): void {
    this.#lastError = message;
  }

  /** The person has seen it (opened the window): the icon goes back to what is happening now. */
  acknowledgeError(): void {
    this.#lastError = undefined;
  }

  observe(event: RoutedEvent): ActivityNote | undefined {
    switch (event.type) {
      case 'session_start':
        this.#runs.set(event.session_id, { agent: event.agent, source: event.source });
        return undefined;
      case 'approval_request':
        this.#approvals.set(event.request_id, event.session_id);
        return {
          kind: 'approval_requested',
          request_id: event.request_id,
          agent: event.agent ?? this.#runs.get(event.session_id)?.agent ?? 'default',
          tool: event.tool,
          summary: event.summary,
          risk: event.risk,
          origin: event.origin,
          source: event.source,
        };
      case 'approval_response':
        this.#approvals.delete(event.request_id);
        return undefined;
      case 'error':
        this.#runErrors.set(event.session_id, event.message);
        return undefined;
      case 'session_end': {
        const run = this.#runs.get(event.session_id);
        this.#runs.delete(event.session_id);
        for (const [id, session] of this.#approvals) if (session === event.session_id) this.#approvals.delete(id);
        const error = this.#runErrors.get(event.session_id);
        this.#runErrors.delete(event.session_id);
        if (event.stop_reason === 'error') this.#lastError = `run failed: ${error ?? 'unknown error'}`;
        else if (event.stop_reason === 'final') this.#lastError = undefined;
        return {
          kind: 'run_ended',
          session_id: event.session_id,
          agent: run?.agent ?? 'default',
          source: run?.source ?? 'unknown',
          stop_reason: event.stop_reason,
          text: event.text,
          ...(error !== undefined ? { error } : {}),
        };
      }
      case 'heartbeat_alert':
        return { kind: 'heartbeat_alert', agent: event.agent, text: event.text };
      case 'change_request':
        this.#changes.add(event.change.change_id);
        return {
          kind: 'change_requested',
          change_id: event.change.change_id,
          ...(event.change.agent ? { agent: event.change.agent } : {}),
          summary: event.change.summary,
        };
      case 'change_response':
        this.#changes.delete(event.change_id);
        return undefined;
      case 'watch_status': {
        if (event.state !== 'unreadable') return undefined;
        const key = `${event.agent}\0${event.path}`;
        if (this.#unreadableTold.has(key)) return undefined;
        this.#unreadableTold.add(key);
        return {
          kind: 'watch_unreadable',
          agent: event.agent,
          path: event.path,
          reason: event.reason ?? `${event.path} cannot be read`,
          ...(event.hint ? { hint: event.hint } : {}),
        };
      }
      case 'schedule_run':
        if (event.status !== 'finished' && event.status !== 'failed') return undefined;
        return {
          kind: 'schedule_ended',
          agent: event.agent,
          schedule_id: event.schedule_id,
          ok: event.status === 'finished',
          ...(event.message !== undefined ? { message: event.message } : {}),
        };
      default:
        return undefined;
    }
  }
}
