/**
 * A tool is a plain object of one structural type. Safety is decided per call, from the parsed input:
 * `bash {command: "ls"}` is read-only and may run beside other reads, `bash {command: "rm x"}` is not.
 * Failures are results the model reads, never throws out of `call`.
 */
import { SUMMARY_CHARS, summaryLine } from '../api/toolSummary.js';
import type { z } from 'zod';
import type { SessionSlots } from './sessionSlots.js';
import type { ToolTraits } from './traits.js';
import type { CommandClassifier } from './builtin/support/commandSafety.js';

export type { ToolFamily, ToolTraits } from './traits.js';
export type { CommandClassification, CommandClassifier } from './builtin/support/commandSafety.js';

/** Where a tool comes from; the registry lists them in this order (local, MCP, cloud, GUI). */
export type ToolSource = 'local' | 'mcp' | 'cloud' | 'gui';

export interface ToolImage {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** base64 */
  data: string;
}

/** Error kinds are shown to the model as a `[kind error]` prefix so it can react (retry, fix args, stop). */
export type ToolErrorKind = 'validation' | 'transient' | 'permission' | 'business';

export interface ToolResult {
  ok: boolean;
  content: string;
  images?: ToolImage[];
  errorKind?: ToolErrorKind;
  /**
   * The result is the run's answer (a cloud research deliverable): when its call is the only one of the
   * model's response and it succeeded, the loop ends the run with `content` (as the tool returned it, before
   * any spill) as the final answer, without another model call. Ignored on failures and beside other calls.
   */
  final?: true;
}

/** One progress report of a running call, sent on as a `tool_progress` event (docs/events.md). */
export interface ToolProgress {
  /** One line for a person (`[researcher] started`, `plan ready`). */
  message: string;
  /** Details for clients that show more (JSON-serialisable). */
  data?: unknown;
}

export const okResult = (content: string, images?: ToolImage[]): ToolResult =>
  images && images.length > 0 ? { ok: true, content, images } : { ok: true, content };
export const errorResult = (kind: ToolErrorKind, message: string): ToolResult => ({
  ok: false,
  errorKind: kind,
  content: `[${kind} error] ${message}`,
});

/** Remembers which files this session has read (and at what mtime/range) for read-before-edit and dedup. */
export interface ReadTracker {
  markRead(absPath: string, info: { mtimeMs: number; size: number; offset: number; limit: number | null }): void;
  lastRead(
    absPath: string,
  ): { mtimeMs: number; size: number; offset: number; limit: number | null; at: string } | undefined;
  /** Forget a path after this session wrote it, so the next read is a real read. */
  invalidate(absPath: string): void;
  /** Record that the session itself wrote the file (so an edit right after a write needs no re-read). */
  markWritten(absPath: string, info: { mtimeMs: number; size: number }): void;
  /** After compaction removed earlier reads from the history: an "unchanged since you read it" stub would mislead. */
  forgetShownContent?(): void;
}

/** Decides whether an outbound HTTP request may go. Filled by the permission engine; default allows. */
export type EgressCheck = (url: URL, method: string) => Promise<{ allowed: true } | { allowed: false; reason: string }>;

export interface ToolContext {
  /** Working folder of the run; relative paths resolve against it. */
  cwd: string;
  sessionId: string;
  /** Folder for this session's side files (spilled results etc.); created on demand. */
  sessionDir: string;
  reinHome: string;
  agent: string;
  readTracker: ReadTracker;
  egress: EgressCheck;
  /** Paths that file tools must refuse to write (the active agent's MEMORY.md, …) with the reason. */
  protectedPaths?: ReadonlyMap<string, string>;
  /** `tools.env_passthrough`: secret-looking variables the bash tool and hooks may pass to their commands. */
  envPassthrough?: readonly string[];
  /** State tools keep between calls of this session (`sessionSlots(ctx).slot(key, init)`); the loop seeds saved state. */
  session?: SessionSlots;
  /**
   * Says what a shell command line does (read-only, safe beside others, destructive) in a working folder:
   * the permission engine's shell analysis, handed in by whoever builds the context (the runtime, `rein mcp
   * serve`), so the bash tool's hints agree with the engine's verdicts for the call's own folder.
   */
  classifyCommand?: CommandClassifier;
  /**
   * Reports progress of the running call: the executor gives each call its own, which becomes a
   * `tool_progress` event for that call; reports after the call returned are dropped. Absent outside a run.
   */
  progress?: (update: ToolProgress) => void;
}

/** What a tool's per-call hints (isReadOnly, isConcurrencySafe, isDestructive) may consult: the call's folder and classifier. */
export type ToolHintContext = Pick<ToolContext, 'cwd' | 'classifyCommand'>;

// The registry holds tools of many input types side by side; `any` is the element type of that list.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Tool<I = any> {
  readonly name: string;
  readonly description: string;
  readonly source: ToolSource;
  /** Strict schema; it is turned into the JSON Schema the model sees. Lenient string coercion happens before parsing. */
  readonly input: z.ZodType<I>;
  /** `ctx`, when the caller has one, is the call's folder and command classifier (the bash tool reads them). */
  isReadOnly(input: I, ctx?: ToolHintContext): boolean;
  /** May run at the same time as other concurrency-safe calls (defaults to isReadOnly when omitted). */
  isConcurrencySafe?(input: I, ctx?: ToolHintContext): boolean;
  isDestructive(input: I, ctx?: ToolHintContext): boolean;
  /** One line for approval prompts, tool cards and the audit log. */
  summarize?(input: I): string;
  /**
   * How much of the summary an approval request carries (default 500). A tool whose input is a program or
   * text that may run (applescript's script, text typed into a terminal) says more: a person approves what
   * they see, so they see all of it.
   */
  readonly approvalSummaryChars?: number;
  /** Characters the model gets before the result is saved to a file and previewed (default 30,000). */
  readonly resultBudget?: number;
  /** What the tool is like (family, drives the GUI, repeatable…), read by the loop detector, permissions and the iteration cap. */
  readonly traits?: ToolTraits;
  /** At most this many calls of the tool run per model response; the executor refuses the later ones (cloud_delegate: 1). */
  readonly maxCallsPerResponse?: number;
  /**
   * A refusal known before anyone is asked (cloud_delegate's per-run limit): the executor returns it as the
   * call's result without asking for approval or running it. Undefined: the call goes on as usual.
   */
  admit?(input: I, ctx: ToolContext): ToolResult | undefined;
  call(input: I, ctx: ToolContext, signal: AbortSignal): Promise<ToolResult>;
}

export const DEFAULT_RESULT_BUDGET = 30_000;

export function concurrencySafe<I>(tool: Tool<I>, input: I, ctx?: ToolHintContext): boolean {
  return tool.isConcurrencySafe ? tool.isConcurrencySafe(input, ctx) : tool.isReadOnly(input, ctx);
}

/** The card line of a call (`tool_call_start.summary`, the audit log); a saved call gets the same from core/api/toolSummary.ts. */
export function summarizeCall<I>(tool: Tool<I>, input: I, max = SUMMARY_CHARS): string {
  return summaryLine(tool.summarize ? tool.summarize(input) : JSON.stringify(input), max);
}

export const APPROVAL_SUMMARY_CHARS = 500;

/** The summary an approval request carries: `approvalSummaryChars` of it, with a clear mark where it is cut. */
export function approvalSummary<I>(tool: Tool<I>, input: I): string {
  const raw = tool.summarize ? tool.summarize(input) : JSON.stringify(input);
  const max = Math.max(APPROVAL_SUMMARY_CHARS, tool.approvalSummaryChars ?? 0);
  return raw.length > max ? `${raw.slice(0, max)}… (cut: ${raw.length - max} more characters not shown)` : raw;
}
