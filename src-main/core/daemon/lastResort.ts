/**
 * The daemon's last resort against a rejection nobody handled. Node's default ends the process on one,
 * which for a daemon means every client's connection reset and daemon.json left behind. The sources are
 * fixed where they were found (a failed save is a value of the run: harness/loop.ts; a run that still
 * throws ends with an error: service/runs/runDriver.ts); this handler is for the next one nobody has
 * found yet: it says what failed, naming the file when the error knows it, and the daemon keeps serving.
 */
import { errorMessage, isReinError } from '../errors.js';

export function keepServingOnUnhandledRejections(warn: (message: string) => void): () => void {
  const onRejection = (reason: unknown) => {
    warn(`a failure nobody handled (the daemon keeps serving): ${describeFailure(reason)}`);
  };
  process.on('unhandledRejection', onRejection);
  return () => void process.off('unhandledRejection', onRejection);
}

/** The message, with the file it is about when the message does not name it already. */
export function describeFailure(reason: unknown): string {
  const message = errorMessage(reason);
  const file = fileOf(reason);
  return file && !message.includes(file) ? `${file}: ${message}` : message;
}

function fileOf(reason: unknown): string | undefined {
  if (isReinError(reason) && typeof reason.details?.file === 'string') return reason.details.file;
  const path = (reason as { path?: unknown } | null)?.path;
  return typeof path === 'string' ? path : undefined;
}
