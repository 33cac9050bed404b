/**
 * The bash tool's per-call hints — isReadOnly, isConcurrencySafe, isDestructive — come from the permission
 * engine's shell analysis (core/permissions/commandRules.ts), so there is one source of truth for what a
 * command line does. The tools area may not import the permissions area (eslint `coreAreas`), so the
 * classifier is handed in: the context a call runs with carries it (`ToolContext.classifyCommand`, given the
 * call's working folder). Without one, or while the shell parser is not ready, a command counts as neither
 * read-only nor concurrency-safe, and as destructive.
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

let fallback: ((command: string) => CommandClassification | undefined) | undefined;

/**
 * The classifier for hints asked without a context (a caller that has no run, such as a test asking
 * `bashTool.isReadOnly({command})`): the permission engine's module installs one, judged in the process's
 * folder. Every run hands its own in through the tool context instead.
 * @deprecated Pass `classifyCommand` in the ToolContext; this stays for context-free callers.
 */
export function setCommandClassifier(c: ((command: string) => CommandClassification | undefined) | undefined): void {
  fallback = c;
}

const NOT_KNOWN: CommandClassification = { readOnly: false, concurrencySafe: false, destructive: true };

function classify(command: string, ctx: ClassifierContext | undefined): CommandClassification {
  try {
    const c = ctx?.classifyCommand ? ctx.classifyCommand(command, ctx.cwd) : fallback?.(command);
    return c ?? NOT_KNOWN;
  } catch {
    return NOT_KNOWN;
  }
}

export const isReadOnlyCommand = (command: string, ctx?: ClassifierContext): boolean => classify(command, ctx).readOnly;
export const isConcurrencySafeCommand = (command: string, ctx?: ClassifierContext): boolean =>
  classify(command, ctx).concurrencySafe;
export const isDestructiveCommand = (command: string, ctx?: ClassifierContext): boolean =>
  classify(command, ctx).destructive;
