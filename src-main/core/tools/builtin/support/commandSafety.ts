/**
 * The bash tool's per-call hints — isReadOnly, isConcurrencySafe, isDestructive — come from the permission
 * engine's shell analysis (core/permissions/commandRules.ts), so there is one source of truth for what a
 * command line does. The tools area may not import the permissions area (eslint `coreAreas`), so the
 * classifier is handed in: the context a call runs with carries it (`ToolContext.classifyCommand`, given the
 * call's working folder). There is no process-wide classifier to fall back on.
 *
 * The safe default: without a classifier (a caller with no context, or a context without one), while the
 * shell parser is not ready, or when the classifier throws, the command is unclassified — neither read-only
 * nor concurrency-safe, and destructive. So a missing classifier can only make a call asked about, run
 * alone and shown as high risk; it never makes it look safer.
 */

export interface CommandClassification {
  readOnly: boolean;
  /** Read-only and finishes on its own (no `tail -f`, no device reads), so it may run beside others. */
  concurrencySafe: boolean;
  destructive: boolean;
}

/** Classifies one command line run in `cwd`, or answers undefined when it cannot (parser not loaded yet). */
export type CommandClassifier = (command: string, cwd: string) => CommandClassification | undefined;

/** The part of a tool context the hints read (tool.ts, ToolHintContext). */
export interface ClassifierContext {
  cwd: string;
  classifyCommand?: CommandClassifier;
}

/** What an unclassified command counts as (the safe default above). */
const NOT_KNOWN: CommandClassification = { readOnly: false, concurrencySafe: false, destructive: true };

function classify(command: string, ctx: ClassifierContext | undefined): CommandClassification {
  try {
    return ctx?.classifyCommand?.(command, ctx.cwd) ?? NOT_KNOWN;
  } catch {
    return NOT_KNOWN;
  }
}

export const isReadOnlyCommand = (command: string, ctx?: ClassifierContext): boolean => classify(command, ctx).readOnly;
export const isConcurrencySafeCommand = (command: string, ctx?: ClassifierContext): boolean =>
  classify(command, ctx).concurrencySafe;
export const isDestructiveCommand = (command: string, ctx?: ClassifierContext): boolean =>
  classify(command, ctx).destructive;
