/**
 * The bash tool's per-call hints — isReadOnly, isConcurrencySafe, isDestructive — come from the permission
 * engine's shell analysis (core/permissions/commandRules.ts), so there is one source of truth for what a
 * command line does. The tools area may not import the permissions area (eslint `coreAreas`), so the
 * engine registers its classifier here when its module loads. Before that, or while the shell parser is
 * not ready, a command counts as neither read-only nor concurrency-safe, and as destructive.
 */

export interface CommandClassification {
  readOnly: boolean;
  /** Read-only and finishes on its own (no `tail -f`, no device reads), so it may run beside others. */
  concurrencySafe: boolean;
  destructive: boolean;
}

/** Classifies one command line, or answers undefined when it cannot (parser not loaded yet). */
export type CommandClassifier = (command: string) => CommandClassification | undefined;

let classifier: CommandClassifier | undefined;

/** Installs the classifier (the permission engine does, once). */
export function setCommandClassifier(c: CommandClassifier | undefined): void {
  classifier = c;
}

const NOT_KNOWN: CommandClassification = { readOnly: false, concurrencySafe: false, destructive: true };

function classify(command: string): CommandClassification {
  try {
    return classifier?.(command) ?? NOT_KNOWN;
  } catch {
    return NOT_KNOWN;
  }
}

export const isReadOnlyCommand = (command: string): boolean => classify(command).readOnly;
export const isConcurrencySafeCommand = (command: string): boolean => classify(command).concurrencySafe;
export const isDestructiveCommand = (command: string): boolean => classify(command).destructive;
