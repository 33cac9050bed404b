/**
 * A reader that stops reading is normal on a command line: `rein schedule list | head -1`,
 * `rein sessions search x | less` quit early. Node ignores SIGPIPE, so the next write to the closed
 * pipe fails with EPIPE — emitted later, as an 'error' event on process.stdout, which with no listener
 * is an uncaught exception and a stack trace on stderr. For every command at once: a closed stdout or
 * stderr ends the process quietly, with exit code 0 (what a pipeline expects of its writer: the reader
 * had what it wanted), whatever the command was doing. Writes still pending die with the process;
 * nobody is left to read them.
 */

/** Ends the process quietly once one of `streams` finds its reader gone. Returns the undo (tests). */
export function exitQuietlyOnClosedPipe(
  streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr],
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  const onError = (err: NodeJS.ErrnoException) => {
    // ERR_STREAM_DESTROYED: a write after the stream was closed by an earlier EPIPE.
    if (err?.code === 'EPIPE' || err?.code === 'ERR_STREAM_DESTROYED') {
      exit(0);
      return;
    }
    // Anything else is what it was before this listener: an error nobody handles.
    throw err;
  };
  for (const s of streams) s.on('error', onError);
  return () => {
    for (const s of streams) s.off('error', onError);
  };
}
