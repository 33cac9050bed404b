/**
 * The contract between the loop and whatever decides whether a tool call may run. The loop asks a
 * PermissionPolicy for a verdict; an `ask` verdict goes to the ApprovalBroker, whose faces (terminal,
 * desktop, daemon, unattended) answer. The loop never knows which face answered.
 */
import type { FormValues } from '../api/approvalForm.js';
import type { GrantEntry } from '../config/schema.js';
import type { ApprovalDecisionKind, ApprovalRequest, RiskLevel } from '../api/events.js';
import type { PermissionMode, RunOrigin } from '../api/patterns.js';
import type { Tool } from '../tools/tool.js';

export type Verdict = 'allow' | 'deny' | 'ask';

export interface PermissionDecision {
  decision: Verdict;
  /** Which layer decided: hard_block, denied_commands, compound, allowed, tool, mode, flag, … */
  layer: string;
  reason: string;
  risk: RiskLevel;
  riskExplanation: string;
  /**
   * What "Allow in this conversation" or "Always allow" on this call would cover (permissions/grants.ts);
   * null: nothing beyond this one call may be granted (a protected place, a persistence place). Absent
   * when the policy does not say (the executor then grants the exact call only).
   */
  grant?: GrantEntry | null;
}

export interface PermissionCheck {
  tool: Tool;
  input: unknown;
  cwd: string;
  mode: PermissionMode;
  /** Where the run came from: cli, desktop, daemon, schedule, heartbeat, watcher, webhook… */
  source: string;
  /** Who is behind the run: an unattended run may not ask anybody (see runPolicy.ts). */
  origin: RunOrigin;
  agent: string;
}

export interface PermissionPolicy {
  check(call: PermissionCheck): PermissionDecision | Promise<PermissionDecision>;
}

/** The one approval request shape (core/api/events.ts), shared by every face. */
export type { ApprovalRequest };

export interface ApprovalAnswer {
  decision: ApprovalDecisionKind;
  /** Which face answered (terminal, desktop, daemon, unattended, timeout, …). */
  by: string;
  /** The filled-in fields, when the request had a `form` and the answer is allow. */
  values?: FormValues;
}

/** One way of asking a person (or deciding for nobody). `ask` must honour the signal: the broker aborts losers. */
export interface ApprovalFace {
  readonly name: string;
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** Runs with nobody to ask (schedules, heartbeats, watchers): every question is denied at once. */
export const unattendedFace: ApprovalFace = {
  name: 'unattended',
  ask: async () => ({ decision: 'deny', by: 'unattended' }),
};
