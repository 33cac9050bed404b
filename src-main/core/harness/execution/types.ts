/** The executor's vocabulary: a call the model made, what the executor needs, and what came of each call. */
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { RunOrigin } from '../../api/patterns.js';
import type { ApprovalBroker } from '../../permissions/approvalBroker.js';
import type { PermissionPolicy } from '../../permissions/types.js';
import type { GrantEntry, PermissionMode } from '../../config/schema.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { Tool, ToolContext, ToolResult } from '../../tools/tool.js';
import type { AuditLog } from '../../audit/auditLog.js';
import type { HookEntry } from '../../hooks/runHooks.js';
import type { SessionApprovals } from '../../context/contextState.js';
import type { GrantSigner } from '../../permissions/grants.js';
import { canonicalJson } from '../../util/canonicalJson.js';
import type { LoopDetector } from '../loopDetector.js';

export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

/** Per-turn memory of approvals: an approved call is not asked again, a denied one is refused without asking. */
export class TurnApprovals {
  readonly approved = new Set<string>();
  readonly denied = new Set<string>();
  /** The grants (grants.ts keys) answered "always allow" during this run: they hold for the rest of it (saving is the caller's). */
  readonly alwaysGrants = new Set<string>();
  deniedCount = 0;
}

export interface ExecutorDeps {
  registry: ToolRegistry;
  policy: PermissionPolicy;
  broker: ApprovalBroker;
  ctx: ToolContext;
  mode: PermissionMode;
  source: string;
  agent: string;
  /** Who is behind the run (attended, remote, unattended): decides who may be asked. */
  origin: RunOrigin;
  /** The run's lane, carried on its approval requests. */
  route: string;
  approvals: TurnApprovals;
  maxParallel: number;
  defaultBudget?: number;
  /** The conversation's "allow in this conversation" grants (saved with the session, each signed). */
  sessionGrants?: SessionApprovals;
  /** Signs and checks those grants (default: the key in the tool context's REIN_HOME). */
  grantSigner?: GrantSigner;
  /** No result goes to the model longer than this, whatever its tool's budget (the window's share). */
  budgetCap?: number;
  /**
   * Called when the user answers "always allow" (persist the grant), with the face that answered.
   * A returned line is told to the run as a notice (the grant waits for a person); errors are reported, not thrown.
   */
  onAlwaysAllow?: (tool: Tool, input: unknown, by: string, grant: GrantEntry) => Promise<string | void>;
  hooks?: { pre: readonly HookEntry[]; post: readonly HookEntry[] };
  audit?: AuditLog;
  /** Every finished call (run or refused) is recorded here, in call order. */
  detector?: LoopDetector;
  /** Work that must finish before the run ends but need not hold up the loop (PostToolUse hooks). */
  background?: Promise<unknown>[];
  /** Where hook and audit failures are reported. */
  warn?: (message: string) => void;
}

export interface ExecutedCall {
  call: ToolCallRequest;
  tool?: Tool;
  input?: unknown;
  result: ToolResult;
  durationMs: number;
  savedTo?: string;
  /** False when the call never ran (denied, invalid, duplicate…). */
  ran: boolean;
  /** A successful result marked `final`: its whole content as the tool returned it (before any spill). */
  answer?: string;
}

export interface BatchOutcome {
  results: ToolResultBlockParam[];
  executed: ExecutedCall[];
  guiUsed: boolean;
  deniedAny: boolean;
}

/** A call that passed admission: its tool and its input as it will run (after a PreToolUse hook). */
export interface Admitted {
  index: number;
  call: ToolCallRequest;
  tool: Tool;
  input: unknown;
}

export const canonicalKey = (name: string, input: unknown): string => `${name}\u0000${canonicalJson(input)}`;
