/**
 * What the desktop needs to know about the daemon's traffic, kept from its event bus: which runs are
 * in flight, which approvals wait, the last failure. The tray icon is drawn from it and the
 * notifications come from the notes `observe` returns. Counting from events (not from the router)
 * means a run stops counting the moment its `session_end` is published, not when its bookkeeping
 * finishes a little later.
 */
import type { RiskLevel, StopReason } from '../api/events.js';
import type { RoutedEvent } from '../daemon/protocol.js';
import { trayStateFor, type TrayState } from './trayState.js';

interface RunInfo {
  agent: string;
  source: string;
}

/** Something that happened which a person may want to hear about. */
export type ActivityNote =
  | { kind: 'run_ended'; sessionId: string; agent: string; source: string; stopReason: StopReason; text: string; error?: string }
  | { kind: 'approval_requested'; requestId: string; agent: string; tool: string; summary: string; risk: RiskLevel }
  | { kind: 'heartbeat_alert'; agent: string; text: string }
  | { kind: 'schedule_ended'; agent: string; scheduleId: string; ok: boolean; message?: string };

export class DesktopActivity {
  readonly #runs = new Map<string, RunInfo>();
  /** requestId → sessionId, so a run that ends takes its unanswered questions with it. */
  readonly #approvals = new Map<string, string>();
  /** The last error message of each run still in flight: its session_end reports it. */
  readonly #runErrors = new Map<string, string>();
  #lastError: string | undefined;

  get activeRuns(): number {
    return this.#runs.size;
  }

  get pendingApprovals(): number {
    return this.#approvals.size;
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  trayState(): TrayState {
    return trayStateFor(this.pendingApprovals, this.activeRuns, this.#lastError);
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
        this.#runs.set(event.sessionId, { agent: event.agent, source: event.source });
        return undefined;
      case 'approval_request':
        this.#approvals.set(event.requestId, event.sessionId);
        return {
          kind: 'approval_requested',
          requestId: event.requestId,
          agent: event.agent ?? this.#runs.get(event.sessionId)?.agent ?? 'default',
          tool: event.tool,
          summary: event.summary,
          risk: event.risk,
        };
      case 'approval_response':
        this.#approvals.delete(event.requestId);
        return undefined;
      case 'error':
        this.#runErrors.set(event.sessionId, event.message);
        return undefined;
      case 'session_end': {
        const run = this.#runs.get(event.sessionId);
        this.#runs.delete(event.sessionId);
        for (const [id, session] of this.#approvals) if (session === event.sessionId) this.#approvals.delete(id);
        const error = this.#runErrors.get(event.sessionId);
        this.#runErrors.delete(event.sessionId);
        if (event.stopReason === 'error') this.#lastError = `run failed: ${error ?? 'unknown error'}`;
        else if (event.stopReason === 'final') this.#lastError = undefined;
        return {
          kind: 'run_ended',
          sessionId: event.sessionId,
          agent: run?.agent ?? event.agent ?? 'default',
          source: run?.source ?? 'unknown',
          stopReason: event.stopReason,
          text: event.text,
          ...(error !== undefined ? { error } : {}),
        };
      }
      case 'heartbeat_alert':
        return { kind: 'heartbeat_alert', agent: event.agent, text: event.text };
      case 'schedule_run':
        if (event.status !== 'finished' && event.status !== 'failed') return undefined;
        return {
          kind: 'schedule_ended',
          agent: event.agent,
          scheduleId: event.scheduleId,
          ok: event.status === 'finished',
          ...(event.message !== undefined ? { message: event.message } : {}),
        };
      default:
        return undefined;
    }
  }
}
